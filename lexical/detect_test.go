package lexical_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/lexical"
)

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		text    string
		want    lexical.Language
		minConf float64
	}{
		{`The daemon indexes every registered project when it starts, and keeps the index
			in step with the repository as commits arrive. A search fuses the keyword ranking with
			the vector ranking; when the embedding server is down, the keyword half answers alone
			and the response says so.`, lexical.English, 0.5},
		{`Демон индексирует каждый зарегистрированный проект при запуске и держит индекс
			в согласии с репозиторием. Поиск объединяет лексическое ранжирование с векторным
			через ReplaceScope и bm25, а если сервер эмбеддингов недоступен, отвечает одна лексика.`, lexical.Russian, 0.8},
		{`O daemon indexa cada projeto registrado quando inicia e mantém o índice de acordo com o
			repositório. Uma busca combina a classificação por palavras com a dos vetores; quando o
			servidor de embeddings não responde, a metade lexical responde sozinha e a resposta diz isso.`, lexical.Portuguese, 0.5},
		{`El demonio indexa cada proyecto registrado cuando arranca y mantiene el índice al día con
			el repositorio. Una búsqueda combina la clasificación por palabras con la de los vectores;
			cuando el servidor de embeddings no responde, la mitad léxica responde sola y la respuesta lo dice.`, lexical.Spanish, 0.5},
		{`Der Dienst indiziert jedes registrierte Projekt beim Start und hält den Index mit dem
			Repository auf dem neuesten Stand. Eine Suche verbindet die Rangfolge nach Wörtern mit der
			nach Vektoren; wenn der Server nicht antwortet, antwortet die lexikalische Hälfte allein.`, lexical.German, 0.5},
		{`Le démon indexe chaque projet enregistré au démarrage et garde l'index à jour avec le
			dépôt. Une recherche combine le classement par mots et celui des vecteurs ; quand le serveur
			d'embeddings ne répond pas, la moitié lexicale répond seule et la réponse le dit.`, lexical.French, 0.5},
		{`我们使用倒排索引来加速全文检索，每个项目都有自己的索引和统计信息。当嵌入服务器不可用时，关键词检索仍然可以单独回答问题。`, lexical.Simple, 0.9},
		{`このデーモンはプロジェクトごとに全文検索の索引を作ります。埋め込みサーバーが止まっているときは、キーワード検索だけで答えます。`, lexical.Simple, 0.9},
	} {
		got := lexical.Detect(tc.text)
		if got.Language != tc.want || got.Confidence < tc.minConf || got.Confidence > 1 {
			t.Errorf("Detect(%.40q…) = %+v, want %s with confidence ≥ %.2f", tc.text, got, tc.want, tc.minConf)
		}
	}
}

func TestDetect_NoEvidence(t *testing.T) {
	for _, text := range []string{"", "README", "func main() { x := 1 }", "1234 5678 90 !!!",
		"ReplaceScope LexicalCandidates chunk_vectors embedding_space sqlite vec fts bm25 rowid"} {
		if got := lexical.Detect(text); got.Language != lexical.DefaultLanguage || got.Confidence != 0 {
			t.Errorf("Detect(%q) = %+v, want the default with no confidence", text, got)
		}
	}
}

// The judged corpora and the seeds are detected as what they are.
func TestDetect_Corpora(t *testing.T) {
	for _, tc := range []struct {
		dir, sub string
		want     lexical.Language
	}{
		{"testdata/lang/ru", "docs", lexical.Russian},
		{"testdata/lang/pt", "docs", lexical.Portuguese},
		{sharedDir(), "seeds", lexical.Russian},
	} {
		docs := map[string]string{}
		readDocs(t, tc.dir, tc.sub, docs)
		var all strings.Builder
		for _, d := range docs {
			all.WriteString(d)
		}
		if got := lexical.Detect(all.String()); got.Language != tc.want || got.Confidence < 0.8 {
			t.Errorf("%s: Detect = %+v, want %s with confidence ≥ 0.8", filepath.Join(tc.dir, tc.sub), got, tc.want)
		}
	}
}
