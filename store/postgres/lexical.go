package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
	"github.com/ragd/ragd/store/rules"
)

// The lexical signal. A chunk's tsv is its title, headings and content as
// package lexical analyses them in the project's language (the very text
// SQLite's FTS5 table holds), each turned into a tsvector by the 'simple'
// configuration, which only splits at the spaces between the analyser's
// tokens and lowercases what is already lower case: PostgreSQL adds no
// analysis, so both engines match the same chunks. Title, headings and
// content carry the weights A, B and D; the ranking counts them alike
// (rankWeights), as SQLite's bm25 does its three columns.
//
// A query crosses the snapshot as a ragd.LexicalQuery of analysed tokens; it is
// rendered here as a tsquery whose every token is a quoted lexeme, read by
// to_tsquery with the same 'simple' configuration, so that nothing a user
// types is syntax and a token splits, if ever, exactly as the indexed text
// did.

// tsConfig is the text search configuration of both sides.
const tsConfig = "simple"

// rankWeights are ts_rank's weights of D, C, B and A (content, -,
// headings, title): equal, like bm25's default column weights.
const rankWeights = "{1,1,1,1}"

// tsvSQL returns the SQL expression of a chunk's tsv from the analysed
// title, headings and content in parameters $t, $h and $c.
func tsvSQL(t, h, c int) string {
	return fmt.Sprintf("setweight(to_tsvector('%[4]s', $%[1]d), 'A') || setweight(to_tsvector('%[4]s', $%[2]d), 'B') || to_tsvector('%[4]s', $%[3]d)",
		t, h, c, tsConfig)
}

// analysedChunk is the text of one chunk as its tsv is built from.
type analysedChunk struct {
	title, heading, content string
}

func analyseChunk(a *lexical.Analyzer, title, headingJSON, content string) analysedChunk {
	return analysedChunk{title: a.Text(title), heading: a.Text(rules.HeadingText(headingJSON)), content: a.Text(content)}
}

// renderTSQuery renders q as a tsquery for to_tsquery: the terms ORed,
// each a phrase of quoted lexemes (a <-> b), a prefix term's last lexeme
// marked :*, and each excluded term ANDed as a negation. It returns ""
// when no term has a token: such a query matches nothing.
func renderTSQuery(q ragd.LexicalQuery) string {
	var any []string
	for _, t := range q.Terms {
		if s := renderTerm(t); s != "" {
			any = append(any, s)
		}
	}
	return orExcluding(any, q.Excluded)
}

// orExcluding is the tsquery of any ORed, less the excluded terms; "" when
// any is empty.
func orExcluding(any []string, excluded []ragd.LexicalTerm) string {
	if len(any) == 0 {
		return ""
	}
	expr := strings.Join(any, " | ")
	var not []string
	for _, t := range excluded {
		if s := renderTerm(t); s != "" {
			not = append(not, "!("+s+")")
		}
	}
	if len(not) == 0 {
		return expr
	}
	if len(any) > 1 {
		expr = "(" + expr + ")"
	}
	return expr + " & " + strings.Join(not, " & ")
}

// renderTerm renders one term's tokens as a phrase, "" when it has none
// (blank tokens are left out: they hold no lexeme).
func renderTerm(t ragd.LexicalTerm) string {
	var lex []string
	for _, tok := range t.Tokens {
		if strings.TrimSpace(tok) != "" {
			lex = append(lex, quoteLexeme(tok))
		}
	}
	if len(lex) == 0 {
		return ""
	}
	if t.Prefix {
		lex[len(lex)-1] += ":*"
	}
	if len(lex) == 1 {
		return lex[0]
	}
	return "(" + strings.Join(lex, " <-> ") + ")"
}

// quoteLexeme quotes a token as a tsquery lexeme: inside single quotes a
// quote is doubled and a backslash escaped, so no token is syntax.
func quoteLexeme(tok string) string {
	tok = strings.ReplaceAll(tok, `\`, `\\`)
	tok = strings.ReplaceAll(tok, `'`, `''`)
	return "'" + tok + "'"
}

// projectLanguages reads a project's language setting and the language
// its tsv columns are analysed with ("" while no chunk decided it).
func projectLanguages(ctx context.Context, q querier, projectID int64, lock string) (setting, built string, err error) {
	err = q.QueryRow(ctx, "SELECT language, lexical_language FROM projects WHERE id = $1"+lock, projectID).Scan(&setting, &built)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", fmt.Errorf("project %d: %w", projectID, ragd.ErrNotFound)
	}
	if err != nil {
		return "", "", fmt.Errorf("language of project %d: %w", projectID, err)
	}
	return setting, built, nil
}

// decideLanguage returns the language chunks written to a project are
// analysed with: the one recorded, or else the one these chunks decide,
// recorded now in a transaction of its own (so that two first writes of a
// project, say its docs and its ADRs by two daemons, agree on one). A
// write that then fails leaves the language decided by the same text, as
// the next attempt would.
func (s *Store) decideLanguage(ctx context.Context, projectID int64, chunks []ragd.ChunkInput) (string, error) {
	setting, built, err := projectLanguages(ctx, s.pool, projectID, "")
	if err != nil || built != "" || len(chunks) == 0 {
		return built, err
	}
	lang := rules.FirstLanguage(setting, chunks)
	var got string
	err = s.pool.QueryRow(ctx, `UPDATE projects SET lexical_language = CASE WHEN lexical_language = '' THEN $2 ELSE lexical_language END
		WHERE id = $1 RETURNING lexical_language`, projectID, lang).Scan(&got)
	if err != nil {
		return "", fmt.Errorf("record language %s of project %d: %w", lang, projectID, err)
	}
	return got, nil
}

// SetLanguage sets a project's language ("" for automatic: detected from
// its text) and, when the language in force changes, rebuilds the tsv of
// every chunk of the project, in one transaction holding the project's
// row: searches see the old analysis or the new one, and reindexes (which
// share that row) wait. No vector is touched.
func (s *Store) SetLanguage(ctx context.Context, projectID int64, language string) (ragd.LanguageChange, error) {
	var ch ragd.LanguageChange
	setting := ""
	if strings.TrimSpace(language) != "" {
		l, err := lexical.ParseLanguage(language)
		if err != nil {
			return ch, fmt.Errorf("set language of project %d: %w: %w", projectID, ragd.ErrInvalid, err)
		}
		setting = string(l)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return ch, s.describe(fmt.Sprintf("set language of project %d: begin", projectID), err)
	}
	defer tx.Rollback(ctx)
	_, built, err := projectLanguages(ctx, tx, projectID, " FOR UPDATE")
	if err != nil {
		return ch, s.describe("set language", err)
	}
	if _, err := tx.Exec(ctx, "UPDATE projects SET language = $1 WHERE id = $2", setting, projectID); err != nil {
		return ch, s.describe(fmt.Sprintf("set language of project %d", projectID), err)
	}
	if built != "" {
		want := setting
		if want == "" {
			sample, err := projectSample(ctx, tx, projectID)
			if err != nil {
				return ch, s.describe("set language", err)
			}
			want = string(lexical.Detect(sample).Language)
		}
		if want != built {
			if ch.Chunks, err = rebuildLexical(ctx, tx, projectID, want); err != nil {
				return ch, s.describe("set language", err)
			}
			ch.Rebuilt = true
		}
	}
	if ch.Project, err = s.projectByID(ctx, tx, projectID); err != nil {
		return ch, err
	}
	if err := tx.Commit(ctx); err != nil {
		return ch, s.describe(fmt.Sprintf("set language of project %d: commit", projectID), err)
	}
	return ch, nil
}

// projectSample returns the start of a project's stored text, documents
// first, for detection.
func projectSample(ctx context.Context, q querier, projectID int64) (string, error) {
	rows, err := q.Query(ctx, `SELECT title || ' ' || content FROM chunks WHERE project_id = $1
		ORDER BY scope = 'session', seq`, projectID)
	if err != nil {
		return "", fmt.Errorf("sample text of project %d: %w", projectID, err)
	}
	defer rows.Close()
	sample, err := rules.ReadSample(rows)
	if err != nil {
		return "", fmt.Errorf("sample text of project %d: %w", projectID, err)
	}
	return sample, nil
}

// rebuildLexical rewrites the tsv of every chunk of a project analysed for
// lang, and records lang. It returns the number of chunks rewritten.
func rebuildLexical(ctx context.Context, tx pgx.Tx, projectID int64, lang string) (int, error) {
	a, err := rules.AnalyzerFor(lang)
	if err != nil {
		return 0, err
	}
	rows, err := tx.Query(ctx, "SELECT seq, title, heading_path, content FROM chunks WHERE project_id = $1 ORDER BY seq", projectID)
	if err != nil {
		return 0, fmt.Errorf("rebuild lexical index of project %d: %w", projectID, err)
	}
	texts, err := rules.ReadTexts(rows)
	rows.Close()
	if err != nil {
		return 0, fmt.Errorf("rebuild lexical index of project %d: %w", projectID, err)
	}
	type row struct {
		seq int64
		doc analysedChunk
	}
	all := make([]row, len(texts))
	for i, t := range texts {
		all[i] = row{t.Seq, analyseChunk(a, t.Title, t.Heading, t.Content)}
	}
	b := &pgx.Batch{}
	for _, r := range all {
		b.Queue("UPDATE chunks SET tsv = "+tsvSQL(1, 2, 3)+" WHERE seq = $4", r.doc.title, r.doc.heading, r.doc.content, r.seq)
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return 0, fmt.Errorf("rebuild lexical index of project %d: %w", projectID, err)
	}
	if _, err := tx.Exec(ctx, "UPDATE projects SET lexical_language = $1 WHERE id = $2", lang, projectID); err != nil {
		return 0, fmt.Errorf("record language of project %d: %w", projectID, err)
	}
	return len(all), nil
}
