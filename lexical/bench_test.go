package lexical_test

// Analysis throughput, per script:
//
//	go test -tags sqlite_fts5 -run '^$' -bench . -benchtime 2s ./lexical/

import (
	"strings"
	"testing"

	"github.com/ragd/ragd/lexical"
)

// benchText is about this many bytes: a large chunk's worth, many times.
const benchBytes = 64 << 10

var benchParagraphs = map[string]struct {
	lang lexical.Language
	text string
}{
	"english": {lexical.English, `The daemon indexes each registered project's markdown documents and
		decision records, splits them into chunks of about three hundred tokens, and stores their
		text for keyword ranking beside their vectors. Searches fuse both rankings; when the embedding
		server is down, the keyword half answers alone. `},
	"russian": {lexical.Russian, `Демон индексирует документы и записи решений каждого
		зарегистрированного проекта, нарезает их на куски примерно по триста токенов и хранит их
		текст для лексического ранжирования рядом с векторами. Поиск объединяет оба ранжирования;
		когда сервер эмбеддингов недоступен, отвечает одна лексическая половина. `},
	"portuguese": {lexical.Portuguese, `O daemon indexa os documentos e as decisões de cada
		projeto registrado, divide-os em pedaços de cerca de trezentos tokens e guarda o texto para
		a classificação lexical ao lado dos vetores. As buscas combinam as duas classificações. `},
	"cjk": {lexical.English, `デーモンは登録された各プロジェクトの文書と決定記録を索引し、約三百トークンの
		断片に分割して、ベクトルの隣にキーワード順位付け用のテキストを保存します。我们使用倒排索引来加速全文检索，
		每个项目都有自己的索引和统计信息。`},
}

func BenchmarkAnalyze(b *testing.B) {
	for _, name := range []string{"english", "russian", "portuguese", "cjk"} {
		p := benchParagraphs[name]
		text := strings.Repeat(p.text, benchBytes/len(p.text)+1)
		a := mustNew(b, p.lang)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				buf = a.AppendText(buf[:0], text)
			}
			if len(buf) == 0 {
				b.Fatal("no tokens")
			}
		})
	}
}

func BenchmarkWord(b *testing.B) {
	a := mustNew(b, lexical.Russian)
	words := strings.Fields("индексом поиска chunks ReplaceScope 全文検索 decisões")
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, w := range words {
			n += len(a.Word(w))
		}
	}
	if n == 0 {
		b.Fatal("no terms")
	}
}

func BenchmarkDetect(b *testing.B) {
	text := strings.Repeat(benchParagraphs["portuguese"].text, 200)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if d := lexical.Detect(text); d.Language != lexical.Portuguese {
			b.Fatalf("detected %+v", d)
		}
	}
}
