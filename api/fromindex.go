package api

import "github.com/ragd/ragd"

// The wire form of what a reindex, an append and an import report, and of
// what a project's index covers (see convert.go).

// FromIndexReport returns r on the wire; nil for nil.
func FromIndexReport(r *ragd.IndexReport) *Report { return fromPtr(r, fromIndexReport) }

// FromScopeReport returns r on the wire.
func FromScopeReport(r ragd.ScopeReport) ScopeReport { return fromScopeReport(r) }

// FromProgress returns p on the wire.
func FromProgress(p ragd.Progress) Progress { return Progress(p) }

// FromCoverage returns c on the wire, without what the daemon adds
// (Backfill, Space); nil for nil.
func FromCoverage(c *ragd.Coverage) *Coverage { return fromPtr(c, fromCoverage) }

// FromScopeCoverage returns c on the wire.
func FromScopeCoverage(c ragd.ScopeCoverage) ScopeCoverage { return fromScopeCoverage(c) }

// FromLayoutReport returns l on the wire; nil for nil.
func FromLayoutReport(l *ragd.LayoutReport) *Layout { return fromPtr(l, fromLayoutReport) }

// FromLayoutSettings returns a project's layout settings on the wire.
func FromLayoutSettings(l ragd.Layout) LayoutSettings { return LayoutSettings(l) }

// Layout returns s as the domain's layout settings, unchecked
// (source.ValidateLayout checks them).
func (s LayoutSettings) Layout() ragd.Layout { return ragd.Layout(s) }

// FromAppendReport returns r on the wire.
func FromAppendReport(r ragd.AppendReport) AppendResult { return fromAppendReport(r) }

// FromImportReport returns r on the wire.
func FromImportReport(r ragd.ImportReport) ImportReport { return fromImportReport(r) }

// FromTranscriptReport returns r on the wire; nil for nil.
func FromTranscriptReport(r *ragd.TranscriptReport) *TranscriptReport {
	return fromPtr(r, fromTranscriptReport)
}

// FromTranscriptProgress returns p on the wire.
func FromTranscriptProgress(p ragd.TranscriptProgress) TranscriptProgress {
	return TranscriptProgress(p)
}

// FromRedactedProject returns p on the wire.
func FromRedactedProject(p ragd.RedactedProject) RedactedProject { return RedactedProject(p) }

// The copies below: leaf types by Go conversion, which fails to compile
// when the two declarations drift apart; the others field by field, which
// TestFromCopiesEveryField checks.

func fromChunkCounts(v ragd.ChunkCounts) ChunkCounts { return ChunkCounts(v) }

func fromEmbeddingReport(v ragd.EmbeddingReport) EmbeddingReport { return EmbeddingReport(v) }

func fromInput(v ragd.Input) Input { return Input(v) }

func fromDurations(v ragd.Durations) Durations { return Durations(v) }

func fromFound(v ragd.Found) Found { return Found(v) }

func fromHead(v ragd.Head) Head { return Head(v) }

func fromNoVectorReason(v ragd.NoVectorReason) NoVectorReason { return NoVectorReason(v) }

func fromLeftOut(v ragd.LeftOut) LeftOut { return LeftOut(v) }

func fromDeclared(v ragd.Declared) Declared { return Declared(v) }

func fromConflict(v ragd.Conflict) Conflict { return Conflict(v) }

func fromFileLineError(v ragd.FileLineError) FileLineError { return FileLineError(v) }

func fromProjectImport(v ragd.ProjectImport) ProjectImport { return ProjectImport(v) }

func fromUnregisteredSession(v ragd.UnregisteredSession) UnregisteredSession {
	return UnregisteredSession(v)
}

func fromLayout(v ragd.Layout) LayoutSettings { return LayoutSettings(v) }

func fromIndexReport(v ragd.IndexReport) Report {
	return Report{
		Project:    v.Project,
		Scopes:     fromEach(v.Scopes, func(v *ragd.ScopeReport) *ScopeReport { return fromPtr(v, fromScopeReport) }),
		Complete:   v.Complete,
		Summary:    v.Summary,
		StartedAt:  v.StartedAt,
		DurationMs: v.DurationMs,
	}
}

func fromScopeReport(v ragd.ScopeReport) ScopeReport {
	return ScopeReport{
		Scope:         v.Scope,
		Status:        v.Status,
		RunID:         v.RunID,
		Error:         v.Error,
		Commit:        v.Commit,
		Branch:        v.Branch,
		WorkTree:      v.WorkTree,
		Files:         v.Files,
		Digest:        v.Digest,
		Bytes:         v.Bytes,
		Sessions:      v.Sessions,
		Messages:      v.Messages,
		EventsThrough: v.EventsThrough,
		Chunks:        fromChunkCounts(v.Chunks),
		Unchanged:     v.Unchanged,
		Vectors:       v.Vectors,
		LexicalOnly:   v.LexicalOnly,
		Complete:      v.Complete,
		Embedding:     fromEmbeddingReport(v.Embedding),
		Skipped:       fromEach(v.Skipped, fromInput),
		Replaced:      fromEach(v.Replaced, fromInput),
		Notes:         v.Notes,
		Found:         fromEach(v.Found, fromFound),
		Rules:         v.Rules,
		Settings:      v.Settings,
		Durations:     fromDurations(v.Durations),
		Summary:       v.Summary,
	}
}

func fromCoverage(v ragd.Coverage) Coverage {
	return Coverage{
		Project:         v.Project,
		Head:            fromPtr(v.Head, fromHead),
		Running:         v.Running,
		Notes:           v.Notes,
		Scopes:          fromEach(v.Scopes, func(v *ragd.ScopeCoverage) *ScopeCoverage { return fromPtr(v, fromScopeCoverage) }),
		Language:        v.Language,
		LanguageSetting: v.LanguageSetting,
		Layout:          fromPtr(v.Layout, fromLayoutReport),
	}
}

func fromScopeCoverage(v ragd.ScopeCoverage) ScopeCoverage {
	return ScopeCoverage{
		Scope:           v.Scope,
		Unit:            v.Unit,
		Total:           v.Total,
		Indexed:         v.Indexed,
		Unindexed:       v.Unindexed,
		Skipped:         v.Skipped,
		Messages:        v.Messages,
		MessagesIndexed: v.MessagesIndexed,
		Chunks:          v.Chunks,
		LexicalOnly:     v.LexicalOnly,
		Unembeddable:    fromEach(v.Unembeddable, fromNoVectorReason),
		LastIndexed:     v.LastIndexed,
		LastCommit:      v.LastCommit,
		Stale:           v.Stale,
		StaleReason:     v.StaleReason,
	}
}

func fromLayoutReport(v ragd.LayoutReport) Layout {
	return Layout{
		Settings:         fromLayout(v.Settings),
		Found:            fromEach(v.Found, fromFound),
		LeftOut:          fromEach(v.LeftOut, fromLeftOut),
		Declared:         fromEach(v.Declared, fromDeclared),
		Uncommitted:      v.Uncommitted,
		UncommittedCount: v.UncommittedCount,
		Notes:            v.Notes,
	}
}

func fromAppendReport(v ragd.AppendReport) AppendResult {
	return AppendResult{
		Appended:        v.Appended,
		Messages:        v.Messages,
		Chunks:          v.Chunks,
		Unindexed:       v.Unindexed,
		Duplicates:      v.Duplicates,
		SessionsCreated: v.SessionsCreated,
		Conflicts:       fromEach(v.Conflicts, fromConflict),
		Redactions:      v.Redactions,
	}
}

func fromImportReport(v ragd.ImportReport) ImportReport {
	return ImportReport{
		Lines:        v.Lines,
		Events:       v.Events,
		AppendResult: fromAppendReport(v.AppendReport),
		Bad:          v.Bad,
		LineErrors:   v.LineErrors,
	}
}

func fromTranscriptReport(v ragd.TranscriptReport) TranscriptReport {
	return TranscriptReport{
		Format:            v.Format,
		Paths:             v.Paths,
		Files:             v.Files,
		Unreadable:        v.Unreadable,
		UnreadableCount:   v.UnreadableCount,
		LookedFor:         v.LookedFor,
		Unchanged:         v.Unchanged,
		Resumed:           v.Resumed,
		Lines:             v.Lines,
		Records:           v.Records,
		Sessions:          v.Sessions,
		Messages:          v.Messages,
		Mechanism:         v.Mechanism,
		Appended:          v.Appended,
		Indexed:           v.Indexed,
		Chunks:            v.Chunks,
		Kept:              v.Kept,
		Duplicates:        v.Duplicates,
		SessionsCreated:   v.SessionsCreated,
		Conflicts:         fromEach(v.Conflicts, fromConflict),
		Skipped:           v.Skipped,
		Malformed:         v.Malformed,
		LineErrors:        fromEach(v.LineErrors, fromFileLineError),
		Incomplete:        v.Incomplete,
		Redactions:        v.Redactions,
		Projects:          fromEach(v.Projects, fromProjectImport),
		Unregistered:      fromEach(v.Unregistered, fromUnregisteredSession),
		UnregisteredCount: v.UnregisteredCount,
		Forgotten:         v.Forgotten,
		DurationMs:        v.DurationMs,
	}
}
