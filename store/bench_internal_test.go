package store

import (
	"context"
	"fmt"
	"os"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

func mkdirTemp() (string, error) { return os.MkdirTemp("", "ragd-bench-") }

// appendChunks inserts chunks without removing the scope's others: benchmark
// set-up only, to build large stores file by file.
func (s *Store) appendChunks(ctx context.Context, projectID int64, scope string, in []ragd.ChunkInput) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stamp := now()
	lw, err := newLexicalWriter(ctx, tx, projectID)
	if err != nil {
		return err
	}
	defer lw.Close()
	a, _ := rules.AnalyzerFor("english")
	var ops []codeOp
	for i := range in {
		c := &in[i]
		id := ragd.ChunkID(projectID, scope, c.Source(scope), c.Position, c.ContentHash)
		r, err := tx.ExecContext(ctx, `INSERT INTO chunks (id, project_id, scope, source_path, source_commit, heading_path, title, position, content, content_hash, embedding_space, indexed_at)
			VALUES (?, ?, ?, ?, ?, '[]', '', ?, ?, ?, ?, ?)`, id, projectID, scope, c.SourcePath, c.SourceCommit, c.Position, c.Content, c.ContentHash, s.space, stamp)
		if err != nil {
			return fmt.Errorf("append chunk: %w", err)
		}
		seq, _ := r.LastInsertId()
		if err := lw.insert(ctx, seq, analyseChunk(a, "", "[]", c.Content)); err != nil {
			return err
		}
		blob, err := s.encodeVector(c.Vector)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO chunk_vectors (chunk_seq, project_id, scope, embedding) VALUES (?, ?, ?, ?)", seq, projectID, scope, blob); err != nil {
			return fmt.Errorf("append vector: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertFloatsSQL, seq, blob); err != nil {
			return fmt.Errorf("append floats: %w", err)
		}
		if s.codes != nil {
			ops = append(ops, codeOp{seq: seq, project: projectID, scope: scopeIndex(scope), code: codeOfBlob(blob, s.codes.words)})
		}
	}
	if err := lw.flush(ctx); err != nil {
		return err
	}
	return s.commitVectors(tx, ops)
}

// ensureBounds computes the words' bounds of a project whose lexical
// table predates them (a corpus built before): benchmark set-up.
func (s *Store) ensureBounds(ctx context.Context, projectID int64) error {
	return s.addBounds(ctx, projectID)
}
