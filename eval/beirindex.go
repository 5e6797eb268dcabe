package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/chunking"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/engines"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/source"
	"github.com/ragd/ragd/store"
)

// BEIRProject is the project name of a BEIR corpus in its work folder.
const BEIRProject = "beir"

// BEIRIndexOptions configure OpenBEIRIndex.
type BEIRIndexOptions struct {
	// Work is the folder holding the corpus's repository and its indexes,
	// one per embedding space. It is created if needed, kept afterwards,
	// and reused by later runs on the same corpus.
	Work string
	// Embedding configures the embedder, as the daemon's [embedding].
	Embedding embedding.Config
	// Chunking sets the chunk sizes; the zero value means the defaults.
	Chunking chunking.Options
	// Logger. Optional: slog.Default().
	Logger *slog.Logger
	// Progress, if not nil, receives the reindex's progress.
	Progress func(ragd.Progress)
	// Vectors and QuantizeFrom are store.Options' of those names.
	Vectors      store.VectorMode
	QuantizeFrom int
	// Database is where the corpus is indexed, as project BEIRProject: a
	// SQLite file or a postgres:// URL (engines.Open). Optional: a SQLite
	// file in Work, one per embedding space.
	Database string
}

// BEIRIndex is a BEIR corpus indexed as a project of its own store.
type BEIRIndex struct {
	Store   engine.Store
	Project ragd.Project
	// Embedder is the documents' embedder; it caches in Store.
	Embedder *embedding.Service
	Repo     BEIRRepo
	// RepoReused is set when the work folder already held the corpus's
	// repository.
	RepoReused bool
	// Report is the reindex's: Unchanged when a previous run left the index
	// as it is, with nothing embedded.
	Report *ragd.IndexReport
	// RepoTime is the time spent writing the repository, IndexTime the
	// reindex's.
	RepoTime, IndexTime time.Duration
}

// Close closes the store.
func (x *BEIRIndex) Close() error { return x.Store.Close() }

// beirMeta is the work folder's meta.json: which corpus its repository
// holds. Commit is "" while the repository is being written.
type beirMeta struct {
	Corpus string `json:"corpus"`
	SHA256 string `json:"sha256"`
	Docs   int    `json:"docs"`
	Commit string `json:"commit"`
}

const (
	metaFile = "meta.json"
	repoDir  = "repo"
)

// OpenBEIRIndex makes b's corpus a project in opt.Work and indexes it
// through the real pipeline: WriteBEIRRepo writes each document as
// docs/<id>.md of a new git repository, and an index.Indexer with the
// configured embedder indexes its docs scope into a store of the work
// folder. A work folder that already holds this corpus is reused: its
// repository as is, and its index through a reindex that finds it
// unchanged (nothing is embedded) or embeds only what is missing, from
// the store's embedding cache when it can. A work folder holding another
// corpus, or files that are not a ragd evaluation's, is refused.
func OpenBEIRIndex(ctx context.Context, b *BEIR, opt BEIRIndexOptions) (_ *BEIRIndex, err error) {
	if opt.Work == "" {
		return nil, errors.New("BEIR index: no work folder")
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if err := os.MkdirAll(opt.Work, 0o700); err != nil {
		return nil, fmt.Errorf("BEIR index: %w", err)
	}
	x := &BEIRIndex{}
	start := time.Now()
	if x.Repo, x.RepoReused, err = beirRepo(ctx, b, opt.Work); err != nil {
		return nil, err
	}
	x.RepoTime = time.Since(start)

	space := embedding.SpaceFor(opt.Embedding)
	dbPath := opt.Database
	if dbPath == "" {
		dbPath = filepath.Join(opt.Work, "index-"+fileSafe(space.String())+".db")
	}
	st, err := engines.Open(ctx, dbPath, engine.Options{Space: space.String(), Dims: space.Dims, Logger: opt.Logger,
		Vectors: string(opt.Vectors), QuantizeFrom: opt.QuantizeFrom})
	if err != nil {
		return nil, fmt.Errorf("BEIR index: %w", err)
	}
	x.Store = st
	defer func() {
		if err != nil {
			x.Store.Close()
		}
	}()
	x.Project, err = x.Store.Project(ctx, BEIRProject)
	if errors.Is(err, ragd.ErrNotFound) {
		x.Project, err = x.Store.AddProject(ctx, BEIRProject, x.Repo.Dir)
	}
	if err != nil {
		return nil, fmt.Errorf("BEIR index: %w", err)
	}
	if x.Embedder, err = embedding.New(opt.Embedding, x.Store); err != nil {
		return nil, fmt.Errorf("BEIR index: embedding configuration: %w", err)
	}
	ix := &index.Indexer{Store: x.Store, Embedder: x.Embedder, Chunking: opt.Chunking, Logger: opt.Logger}
	start = time.Now()
	x.Report, err = ix.Reindex(ctx, x.Project, []string{ragd.ScopeDocs}, opt.Progress)
	x.IndexTime = time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("BEIR index of %s: %w", b.Corpus, err)
	}
	// Searches before the codes are loaded scan exactly: wait, so that
	// every query is retrieved the same way.
	if err := waitVectorIndex(ctx, x.Store); err != nil {
		return nil, fmt.Errorf("BEIR index: %w", err)
	}
	return x, nil
}

// beirRepo returns the corpus's repository in work, writing it unless
// work already holds it.
func beirRepo(ctx context.Context, b *BEIR, work string) (BEIRRepo, bool, error) {
	dir := filepath.Join(work, repoDir)
	metaPath := filepath.Join(work, metaFile)
	var meta beirMeta
	raw, err := os.ReadFile(metaPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		entries, err := os.ReadDir(work)
		if err != nil {
			return BEIRRepo{}, false, fmt.Errorf("BEIR index: %w", err)
		}
		if len(entries) > 0 {
			return BEIRRepo{}, false, fmt.Errorf("BEIR index: work folder %s is not empty and holds no %s: not a ragd evaluation folder; choose another --work", work, metaFile)
		}
	case err != nil:
		return BEIRRepo{}, false, fmt.Errorf("BEIR index: %w", err)
	default:
		if err := json.Unmarshal(raw, &meta); err != nil {
			return BEIRRepo{}, false, fmt.Errorf("BEIR index: %s: %w", metaPath, err)
		}
		if meta.SHA256 != b.CorpusSHA256 {
			return BEIRRepo{}, false, fmt.Errorf("BEIR index: work folder %s holds another corpus (%s, sha256 %.12s); remove it or choose another --work",
				work, meta.Corpus, meta.SHA256)
		}
		if meta.Commit != "" {
			if head, err := source.Head(ctx, dir); err == nil && head.Commit == meta.Commit {
				return BEIRRepo{Dir: head.Root, Commit: meta.Commit, Docs: meta.Docs}, true, nil
			}
		}
		// Written only in part (the run was interrupted): start over.
		if err := os.RemoveAll(dir); err != nil {
			return BEIRRepo{}, false, fmt.Errorf("BEIR index: %w", err)
		}
	}

	meta = beirMeta{Corpus: b.Corpus, SHA256: b.CorpusSHA256, Docs: b.Docs}
	if err := writeMeta(metaPath, meta); err != nil {
		return BEIRRepo{}, false, err
	}
	f, err := b.OpenCorpus()
	if err != nil {
		return BEIRRepo{}, false, err
	}
	defer f.Close()
	repo, err := WriteBEIRRepo(ctx, f, dir)
	if err != nil {
		return repo, false, fmt.Errorf("BEIR index of %s: %w", b.Corpus, err)
	}
	if root, err := source.Root(dir); err == nil {
		repo.Dir = root
	}
	meta.Commit = repo.Commit
	return repo, false, writeMeta(metaPath, meta)
}

func writeMeta(path string, meta beirMeta) error {
	b, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return fmt.Errorf("BEIR index: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("BEIR index: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("BEIR index: %w", err)
	}
	return nil
}

// fileSafe maps s to a file name: letters, digits, '.', '-' and '_' kept,
// anything else '_'.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}
