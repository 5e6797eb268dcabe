package index

import (
	"context"
	"fmt"
	"time"

	"github.com/ragd/ragd"
)

// SetLanguage sets the language of project p's lexical index (a name of
// package lexical's languages, or "" to detect it from the text) and, when
// the language in force changes, rebuilds that project's lexical index from
// its stored chunks: nothing is read from git, nothing is embedded. It is
// refused with a *RunningError (ErrAlreadyRunning) while a reindex of p is
// in progress, and holds reindexes of p off while it runs, so the table is
// never rebuilt under a reindex's write. An unknown language is an error
// wrapping ragd.ErrInvalid and store.ErrUnknownLanguage.
func (ix *Indexer) SetLanguage(ctx context.Context, p ragd.Project, language string) (ragd.LanguageChange, error) {
	release, err := ix.acquire(p)
	if err != nil {
		return ragd.LanguageChange{}, fmt.Errorf("set language of %s: %w", p.Name, err)
	}
	defer release()
	start := time.Now()
	ch, err := ix.Store.SetLanguage(ctx, p.ID, language)
	if err != nil {
		return ch, fmt.Errorf("set language of %s: %w", p.Name, err)
	}
	if ch.Rebuilt {
		ix.logger().Info("lexical index rebuilt", "project", p.Name, "language", ch.Project.LexicalLanguage,
			"chunks", ch.Chunks, "ms", time.Since(start).Milliseconds())
	}
	return ch, nil
}
