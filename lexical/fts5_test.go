package lexical_test

// The integration the analysis is made for, on real SQLite FTS5: an
// analysed column under the ascii tokenizer indexes exactly the analysed
// tokens, and the terms of a query find what they should and never make
// FTS5 fail.

import (
	"database/sql"
	"slices"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
	"github.com/ragd/ragd/store"
)

// openFTS returns an in-memory FTS5 table laid out as proposed for the
// store: one analysed column, ascii tokenizer, prefix indexes.
func openFTS(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'ascii', prefix = '2 3');
		CREATE VIRTUAL TABLE docs_vocab USING fts5vocab(docs, 'instance');`); err != nil {
		t.Fatalf("create: %v", err)
	}
	return db
}

func matchIDs(t testing.TB, db *sql.DB, match string) []int64 {
	t.Helper()
	rows, err := db.Query("SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rowid", match)
	if err != nil {
		t.Fatalf("MATCH %s: %v", match, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatalf("scan: %v", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("MATCH %s: %v", match, err)
	}
	return ids
}

// match is terms OR-ed as the store renders them for FTS5 ("" when none
// has a token): the search package hands them to it as analysed here.
func match(terms ...lexical.Term) string {
	var q ragd.LexicalQuery
	for _, t := range terms {
		q.Terms = append(q.Terms, ragd.LexicalTerm{Tokens: t.Tokens, Prefix: t.Prefix})
	}
	return store.MatchExpression(q)
}

func TestFTS5_IndexesExactlyTheTokens(t *testing.T) {
	db := openFTS(t)
	a := mustNew(t, lexical.Russian)
	text := "Индексы строятся при регистрации проекта; the chunks are indexed with ReplaceScope. 全文検索エンジン。 Ação, ёлка, Straße, nDCG@10, ภาษาไทย"
	if _, err := db.Exec("INSERT INTO docs (rowid, body) VALUES (1, ?)", a.Text(text)); err != nil {
		t.Fatalf("insert: %v", err)
	}
	rows, err := db.Query("SELECT term FROM docs_vocab ORDER BY offset")
	if err != nil {
		t.Fatalf("vocab: %v", err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var term string
		if err := rows.Scan(&term); err != nil {
			t.Fatalf("scan: %v", err)
		}
		got = append(got, term)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("vocab: %v", err)
	}
	if want := a.Analyze(text); !slices.Equal(got, want) {
		t.Fatalf("FTS5 indexed %q\nanalysis gave %q", got, want)
	}
}

func TestFTS5_QueriesFindInflections(t *testing.T) {
	db := openFTS(t)
	docs := []struct {
		lang lexical.Language
		text string
	}{
		1: {lexical.Russian, "Гибридный поиск объединяет лексический индекс и векторы. Индексом управляет демон."},
		2: {lexical.Russian, "Нарезка документов на куски: размер и перекрытие."},
		3: {lexical.Portuguese, "As buscas combinam o índice lexical e os vetores de cada projeto."},
		4: {lexical.Portuguese, "A decisão sobre o tamanho dos pedaços foi registrada num ADR."},
		5: {lexical.English, "このデーモンはプロジェクトごとに全文検索の索引を作ります。"},
		6: {lexical.English, "我们使用倒排索引来加速全文检索。"},
	}
	for id, d := range docs[1:] {
		a := mustNew(t, d.lang)
		if _, err := db.Exec("INSERT INTO docs (rowid, body) VALUES (?, ?)", id+1, a.Text(d.text)); err != nil {
			t.Fatalf("insert: %v", err)
		}
	}
	for _, tc := range []struct {
		lang  lexical.Language
		query string // plain words, OR-ed
		want  []int64
	}{
		{lexical.Russian, "индекса", []int64{1}},
		{lexical.Russian, "поиском", []int64{1}},
		{lexical.Russian, "кусками", []int64{2}},
		{lexical.Portuguese, "busca", []int64{3}},
		{lexical.Portuguese, "índices", []int64{3}},
		{lexical.Portuguese, "decisões", nil}, // Snowball keeps -ão and -ões apart
		{lexical.Portuguese, "decisao", []int64{4}},
		{lexical.English, "全文検索", []int64{5, 6}}, // 全文 is shared; 検索 only in 5
		{lexical.English, "索引", []int64{5, 6}},
		{lexical.English, "倒排", []int64{6}},
		{lexical.English, "検", []int64{5}},
	} {
		a := mustNew(t, tc.lang)
		var terms []lexical.Term
		for _, w := range strings.Fields(tc.query) {
			terms = append(terms, a.Word(w)...)
		}
		if got := matchIDs(t, db, match(terms...)); !slices.Equal(got, tc.want) {
			t.Errorf("%s %q (%s) found %v, want %v", tc.lang, tc.query, match(terms...), got, tc.want)
		}
	}
	// A phrase of unspaced text finds it only where it occurs whole.
	a := mustNew(t, lexical.English)
	if got := matchIDs(t, db, match(a.Phrase("全文検索"))); !slices.Equal(got, []int64{5}) {
		t.Errorf("phrase 全文検索 found %v", got)
	}
	if got := matchIDs(t, db, match(mustNew(t, lexical.Russian).Prefix("индексо"))); !slices.Equal(got, []int64{1}) {
		t.Errorf("prefix индексо* found %v", got)
	}
}
