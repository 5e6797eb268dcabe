package postgres

// TEMPORARY: the lexical helpers the session writes need, until the core
// (branch pg) commits its own; then these go and the core's are used.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
)

// lexicalDoc is the analysed text of one chunk.
type lexicalDoc struct {
	title, heading, content string
}

// tsvExpr is the SQL of a chunk's lexical column from the parameters of
// its analysed title, headings and content.
func tsvExpr(title, heading, content string) string {
	return "setweight(to_tsvector('simple', " + title + "::text), 'A') || setweight(to_tsvector('simple', " + heading +
		"::text), 'B') || setweight(to_tsvector('simple', " + content + "::text), 'D')"
}

// headingText joins a stored heading path (a JSON array) with spaces.
func headingText(headingJSON string) string {
	var hp []string
	if err := json.Unmarshal([]byte(headingJSON), &hp); err != nil {
		return headingJSON
	}
	return strings.Join(hp, " ")
}

const detectSampleBytes = 256 << 10

// appendLanguage returns the analyzer of project projectID's lexical
// column, deciding and recording its language from sample when none is
// yet; nil when none is and sample is empty.
func (s *Store) appendLanguage(ctx context.Context, tx pgx.Tx, projectID int64, sample []ragd.ChunkInput) (*lexical.Analyzer, error) {
	var setting, built string
	if err := tx.QueryRow(ctx, `SELECT language, lexical_language FROM projects WHERE id = $1`, projectID).Scan(&setting, &built); err != nil {
		return nil, fmt.Errorf("language of project %d: %w", projectID, err)
	}
	if built == "" {
		if len(sample) == 0 {
			return nil, nil
		}
		if err := tx.QueryRow(ctx, `SELECT language, lexical_language FROM projects WHERE id = $1 FOR UPDATE`, projectID).Scan(&setting, &built); err != nil {
			return nil, fmt.Errorf("language of project %d: %w", projectID, err)
		}
	}
	if built == "" {
		built = setting
		if built == "" {
			var b strings.Builder
			for i := range sample {
				if b.Len() >= detectSampleBytes {
					break
				}
				b.WriteString(sample[i].Title)
				b.WriteByte(' ')
				b.WriteString(sample[i].Content)
				b.WriteByte('\n')
			}
			built = string(lexical.Detect(b.String()).Language)
		}
		if _, err := tx.Exec(ctx, `UPDATE projects SET lexical_language = $2 WHERE id = $1`, projectID, built); err != nil {
			return nil, fmt.Errorf("record language of project %d: %w", projectID, err)
		}
	}
	l, err := lexical.ParseLanguage(built)
	if err != nil {
		return nil, fmt.Errorf("project %d: %w", projectID, err)
	}
	return lexical.New(l)
}

// lookupChunkColumns are the chunk columns scanLookupChunk reads.
const lookupChunkColumns = `id, project_id, scope, coalesce(source_path, ''), coalesce(source_commit, ''),
	coalesce(session_id, ''), coalesce(event_id, ''), heading_path, title, position, start_offset, end_offset,
	content, content_hash, coalesce(embedding_space, ''), indexed_at`

func scanLookupChunk(r scanner) (ragd.Chunk, error) {
	var c ragd.Chunk
	var heading string
	err := r.Scan(&c.ID, &c.ProjectID, &c.Scope, &c.SourcePath, &c.SourceCommit, &c.SessionID, &c.EventID,
		&heading, &c.Title, &c.Position, &c.Start, &c.End, &c.Content, &c.ContentHash, &c.EmbeddingSpace, &c.IndexedAt)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal([]byte(heading), &c.HeadingPath); err != nil {
		return c, fmt.Errorf("chunk %s: heading path %q: %w", c.ID, heading, err)
	}
	c.IndexedAt = c.IndexedAt.UTC()
	return c, nil
}
