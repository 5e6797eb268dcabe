package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/chunking"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/source"
)

// embedSlice is how many texts go to the Embedder per call: small enough
// that progress moves during a long first index, large enough to keep the
// provider's batches full (8 batches of the default 32).
const embedSlice = 256

// Reindex rebuilds the scopes of project p (names as for ParseScopes) from
// their sources: docs and adr from the git repository at p.Path (read once
// for both), session from the project's event log. It calls progress, if
// not nil, on the caller's goroutine; keep it quick.
//
// Each scope is built (read, chunked, embedded) outside any transaction,
// then replaced in one store transaction: a reader sees the old scope or the
// new one. Scopes are done in the order docs, adr, session, and Reindex
// stops at the first scope that fails; the scopes before it stay written.
// Each scope's run is recorded in the store (see store.StartRun) with its
// ragd.ScopeReport, whatever the outcome. When ctx ends before a scope's write,
// that scope is not written.
//
// The errors are: ErrUnknownScope, a *RunningError (ErrAlreadyRunning) when
// a reindex of p is in progress, ErrNotRepository or ErrNoCommits for a path
// that is not a repository or has nothing committed, ctx's error, and
// store failures. With an error, the returned report, when not nil, tells
// what was done before it. Without one, the report may still say that
// vectors are missing: see ragd.IndexReport.Complete.
func (ix *Indexer) Reindex(ctx context.Context, p ragd.Project, scopes []string, progress func(ragd.Progress)) (*ragd.IndexReport, error) {
	want, err := ParseScopes(scopes)
	if err != nil {
		return nil, fmt.Errorf("reindex %s: %w", p.Name, err)
	}
	opt, err := ix.chunkOptions()
	if err != nil {
		return nil, err
	}
	release, err := ix.acquire(p)
	if err != nil {
		return nil, err
	}
	defer release()
	if progress == nil {
		progress = func(ragd.Progress) {}
	}

	// A corrupt lexical index is rebuilt first: no write of a changed
	// chunk would mend it (an engine with one to check: the SQLite store).
	if lr, ok := ix.Store.(LexicalRepairer); ok {
		if _, err := lr.RepairLexical(ctx, p.ID); err != nil {
			return nil, fmt.Errorf("reindex %s: %w", p.Name, err)
		}
	}

	began := time.Now()
	rep := &ragd.IndexReport{Project: p.Name, StartedAt: ix.now()}
	r := &reindex{ix: ix, p: p, opt: opt, progress: progress}
	// Every scope's run is recorded up front, so that a failure anywhere is
	// on record for each scope asked for. Recording is not cancelled with
	// ctx: a cancelled run is a failed run, never one left "running".
	record := context.WithoutCancel(ctx)
	for _, scope := range want {
		sr := newScopeReport(scope)
		run, err := ix.Store.StartRun(record, p.ID, scope)
		if err != nil {
			for _, started := range rep.Scopes {
				started.Status, started.Error = ragd.StatusFailed, "not run: "+err.Error()
				err = errors.Join(err, r.record(record, started))
			}
			return nil, fmt.Errorf("reindex %s: %w", p.Name, err)
		}
		sr.RunID = run.ID
		rep.Scopes = append(rep.Scopes, sr)
	}

	var failed error
	for _, sr := range rep.Scopes {
		if failed != nil {
			sr.Error = "not run: an earlier scope failed"
		} else {
			start := time.Now()
			failed = r.scope(ctx, sr)
			sr.Durations.TotalMs = ms(time.Since(start))
			if failed != nil {
				sr.Error = failed.Error()
				sr.Status = ragd.StatusFailed
				if ctx.Err() != nil {
					sr.Status = ragd.StatusCancelled
				}
			}
		}
		summarize(sr)
		if err := r.record(record, sr); err != nil {
			failed = errors.Join(failed, err)
		}
		if sr.Status == ragd.StatusOK {
			ix.logger().Info("indexed", "project", p.Name, "summary", sr.Summary, "ms", sr.Durations.TotalMs)
		}
	}
	finish(rep, time.Since(began))
	if failed != nil {
		return rep, fmt.Errorf("reindex %s: %w", p.Name, failed)
	}
	return rep, nil
}

// reindex is the state of one Reindex call.
type reindex struct {
	ix       *Indexer
	p        ragd.Project
	opt      chunking.Options
	progress func(ragd.Progress)

	// down is the reason the provider was found down (a timeout, a
	// connection refused, a model missing, or a slice with no vector at
	// all), once it was: a breaker, so that the rest of the reindex, this
	// scope's remaining slices and the scopes after it, does not ask again.
	down string
	// unusable is set with down when the provider answered with nothing
	// usable (ragd.EmbeddingReport.Unusable).
	unusable bool

	// tree is the documents read, shared by docs and adr.
	tree     *source.Tree
	treeErr  error
	treeRead bool
	readTime time.Duration
}

// record finishes the scope's index run.
func (r *reindex) record(ctx context.Context, sr *ragd.ScopeReport) error {
	status := ragd.RunOK
	if sr.Status != ragd.StatusOK {
		status = ragd.RunFailed
	}
	b, err := json.Marshal(sr)
	if err != nil {
		return fmt.Errorf("encode %s report: %w", sr.Scope, err)
	}
	return r.ix.Store.FinishRun(ctx, sr.RunID, status, sr.Commit, b)
}

// scope builds and writes one scope, filling sr.
func (r *reindex) scope(ctx context.Context, sr *ragd.ScopeReport) error {
	var inputs []ragd.ChunkInput
	var err error
	if sr.Scope == ragd.ScopeSession {
		inputs, err = r.sessionChunks(ctx, sr)
	} else {
		inputs, err = r.docChunks(ctx, sr)
	}
	if err != nil {
		return err
	}
	stored, err := r.ix.Store.ChunkStates(ctx, r.p.ID, sr.Scope)
	if err != nil {
		return fmt.Errorf("%s: %w", sr.Scope, err)
	}
	keys := make([]string, len(inputs))
	for i := range inputs {
		keys[i] = inputs[i].ID(r.p.ID, sr.Scope)
	}
	if err := r.embed(ctx, sr, inputs, keys, stored); err != nil {
		return err
	}

	// Last look before writing: a reindex cancelled by now writes nothing.
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: before write: %w", sr.Scope, err)
	}
	r.progress(ragd.Progress{Phase: ragd.PhaseWrite, Scope: sr.Scope, Total: len(inputs)})
	start := time.Now()
	var res ragd.ReplaceResult
	if unchanged(inputs, keys, stored) {
		// The replace would rewrite every row as it is (and churn the
		// full-text index doing so): the scope already is what it asks for.
		sr.Unchanged = true
		res.Kept = len(inputs)
		for _, st := range stored {
			if st.Vector {
				res.Vectors++
			}
		}
	} else {
		res, err = r.ix.Store.ReplaceScope(ctx, r.p.ID, sr.Scope, inputs)
	}
	sr.Durations.WriteMs = ms(time.Since(start))
	if err != nil {
		return fmt.Errorf("%s: %w", sr.Scope, err)
	}
	r.progress(ragd.Progress{Phase: ragd.PhaseWrite, Scope: sr.Scope, Done: len(inputs), Total: len(inputs)})

	sr.Chunks = ragd.ChunkCounts{Total: len(inputs), Inserted: res.Inserted, Kept: res.Kept, Deleted: res.Deleted}
	sr.Vectors = res.Vectors
	sr.LexicalOnly = len(inputs) - res.Vectors
	sr.Complete = sr.LexicalOnly == 0
	if !sr.Complete {
		r.ix.Backfill.Wake()
	}
	sr.Status = ragd.StatusOK
	r.progress(ragd.Progress{Phase: ragd.PhaseDone, Scope: sr.Scope, Done: len(inputs), Total: len(inputs)})
	return nil
}

// unchanged reports whether inputs are exactly the stored chunks.
func unchanged(inputs []ragd.ChunkInput, keys []string, stored map[string]ragd.ChunkState) bool {
	if len(inputs) != len(stored) {
		return false
	}
	for i := range inputs {
		st, ok := stored[keys[i]]
		if !ok || !st.Matches(&inputs[i]) {
			return false
		}
	}
	return true
}

// embed fills the vectors of the inputs that need one: those not already
// stored with a vector. An unchanged chunk keeps its stored vector (a nil
// Vector tells ReplaceScope so), without a call to the embedder.
func (r *reindex) embed(ctx context.Context, sr *ragd.ScopeReport, inputs []ragd.ChunkInput, keys []string, stored map[string]ragd.ChunkState) error {
	start := time.Now()
	defer func() { sr.Durations.EmbedMs = ms(time.Since(start)) }()
	er := &sr.Embedding
	er.Available = true

	var need []int
	for i := range inputs {
		switch st := stored[keys[i]]; {
		case st.Vector:
			er.Reused++
		case st.Unembeddable: // the same id: the same text
			// The model refused this very text for good: not asked again.
			er.Failed++
			if er.Reason == "" {
				er.Reason = unembeddableReason
			}
		default:
			need = append(need, i)
		}
	}
	if len(need) == 0 {
		if r.ix.Embedder != nil {
			er.Space = r.ix.Embedder.Space().String()
		}
		return nil
	}

	e := r.ix.Embedder
	switch {
	case e == nil:
		er.Available, er.Failed, er.Reason = false, len(need), noProviderReason
		r.progress(ragd.Progress{Phase: ragd.PhaseEmbed, Scope: sr.Scope, Failed: len(need), Total: len(need)})
		return nil
	case e.Space().String() != r.ix.Store.Space():
		// Vectors of another space would be refused by the store, or worse,
		// compared with the stored ones: index without them, and say why.
		er.Space = e.Space().String()
		er.Available, er.Failed = false, len(need)
		er.Reason = fmt.Sprintf("the embedder's space %s is not the index's %s: configure the index's model, or reset the vectors and reindex",
			er.Space, r.ix.Store.Space())
		r.progress(ragd.Progress{Phase: ragd.PhaseEmbed, Scope: sr.Scope, Failed: len(need), Total: len(need)})
		return nil
	}
	er.Space = e.Space().String()
	if r.ix.InlineVectors > 0 && len(need) > r.ix.InlineVectors {
		er.Available, er.Deferred = false, len(need)
		er.Reason = fmt.Sprintf(deferredReason, len(need), r.ix.InlineVectors)
		r.progress(ragd.Progress{Phase: ragd.PhaseEmbed, Scope: sr.Scope, Total: len(need)})
		return nil
	}
	if r.down != "" {
		er.Available, er.Failed, er.Reason, er.ProviderDown, er.Unusable = false, len(need), r.down, true, r.unusable
		r.progress(ragd.Progress{Phase: ragd.PhaseEmbed, Scope: sr.Scope, Failed: len(need), Total: len(need)})
		return nil
	}

	r.progress(ragd.Progress{Phase: ragd.PhaseEmbed, Scope: sr.Scope, Total: len(need)})
	texts := make([]string, 0, embedSlice)
	for from := 0; from < len(need); from += embedSlice {
		part := need[from:min(from+embedSlice, len(need))]
		texts = texts[:0]
		for _, i := range part {
			texts = append(texts, ragd.EmbeddingText(sr.Scope, inputs[i].Title, inputs[i].HeadingPath, inputs[i].Content))
		}
		res := e.EmbedDocuments(ctx, texts)
		if len(res.Vectors) != len(part) {
			// Only a broken Embedder does this; *embedding.Service never.
			cause := fmt.Sprintf("the embedder answered %d vectors for %d texts", len(res.Vectors), len(part))
			res = embedding.Result{Vectors: make([][]float32, len(part)), Failed: len(part), Calls: res.Calls, Reason: cause, Cause: cause}
		}
		for j, i := range part {
			inputs[i].Vector = res.Vectors[j]
		}
		er.Embedded += res.Embedded
		er.Cached += res.Cached
		er.Skipped += res.Skipped
		er.Failed += res.Failed
		er.Calls += res.Calls
		if er.Reason == "" {
			er.Reason = res.Cause
		}
		// The provider is down, hung, or refuses this model (or embedded
		// nothing of this slice): asking again for every slice would cost a
		// timeout each, however many of its texts the cache holds. The rest
		// of this reindex is indexed without vectors, at once.
		down := res.ProviderDown || (res.Failed > 0 && res.Embedded+res.Cached == 0)
		if down {
			er.Failed += len(need) - from - len(part)
			er.ProviderDown, er.Unusable = true, res.Unusable
			er.Reason = res.Cause + "; " + notAskedAgain
			r.down, r.unusable = er.Reason, res.Unusable
		}
		// Progress counts what happened: texts with a vector (or blank), and
		// those without one.
		r.progress(ragd.Progress{Phase: ragd.PhaseEmbed, Scope: sr.Scope, Done: er.Embedded + er.Cached + er.Skipped, Failed: er.Failed, Total: len(need)})
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%s: embedding: %w", sr.Scope, err)
		}
		if down {
			break
		}
	}
	if er.Failed > 0 {
		er.Available = false
		if got := er.Embedded + er.Cached; got > 0 {
			er.Reason = fmt.Sprintf("%s (%d of %d texts not embedded)", er.Reason, er.Failed, er.Failed+got)
		}
	} else {
		er.Reason = ""
	}
	return nil
}

// deferredReason says why a scope was written without vectors that the
// provider could compute: more were needed than InlineVectors.
const deferredReason = "%d texts need a vector, more than the %d a reindex embeds before writing: the chunks are searchable lexically now, and the background fill embeds them at the provider's pace (see coverage)"

// unembeddableReason is the embedding reason of chunks the model refused
// for good in an earlier run (coverage lists the provider's answers).
const unembeddableReason = "the model refused these texts for good (see coverage); not asked again"

// notAskedAgain ends the embedding reason once the provider is found down.
const notAskedAgain = "the provider was not asked again during this reindex"

// ticker spaces the progress reports of a phase over about twenty steps.
type ticker struct {
	total, step, next int
}

func newTicker(total int) *ticker {
	step := max(1, total/20)
	return &ticker{total: total, step: step, next: step}
}

// due reports whether done calls for a report.
func (t *ticker) due(done int) bool {
	if done >= t.next && done < t.total {
		t.next = done + t.step
		return true
	}
	return false
}
