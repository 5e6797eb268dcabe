// Package source reads the two kinds of material ragd indexes, without
// touching the database: the markdown documents of a project's git
// repository (ReadDocs, Head, Root) and the JSON-lines event files of its
// conversation sessions (ReadEvents, ParseEvent, Event.Validate).
//
// # Documents
//
// ReadDocs reads the markdown files (extension .md or .markdown, in any
// letter case) under docs/ in the tree of the commit at HEAD, from git
// objects, so uncommitted edits are not seen and bare repositories work.
// Paths are git paths: slash-separated, relative to the repository root and
// case-sensitive. A path under docs/adr/ has scope "adr"; any other path
// under docs/ has scope "docs" (so docs/ADR/x.md and docs/adrx.md are
// "docs"). ScopeOf applies these rules to a single path.
//
// Options.WorkTree reads the files on disk under docs/ instead, with the
// same rules, honouring .gitignore files and info/exclude (not the user's
// global excludes); it is never used as a fallback.
//
// What is left out is reported in Tree.Skipped with a Reason constant
// (ignored files in work-tree mode and non-markdown files excepted):
//   - submodules (gitlink entries) are listed in Tree.Skipped;
//   - symbolic links are resolved against the repository, never the
//     machine: a markdown-named link whose relative target is a regular
//     file inside the repository is read (from the tree at HEAD, or from
//     disk through an os.Root in work-tree mode) under the link's own path
//     and scope, so a link to another document yields its content twice.
//     A markdown-named link that is dangling, a link to a link or a link
//     through a linked directory, any link to a directory, and any link
//     with an absolute target or one that leaves the repository (it may
//     name a folder of documents: ragd does not look outside to find out)
//     are listed in Tree.Skipped; other links are ignored like any
//     non-markdown file;
//   - nested repositories on disk (a checked-out submodule) are listed in
//     Tree.Skipped in work-tree mode;
//   - Git LFS pointer files (content not in the repository) and files
//     larger than Options.MaxFileBytes (default 1 MiB) are listed in
//     Tree.Skipped;
//   - content that is not text, whatever the file's name (a NUL byte, or
//     more than a quarter of its bytes not valid UTF-8), is listed in
//     Tree.Skipped; text with a few stray bytes is read as it is;
//   - objects missing from the object store (a partial clone) are listed in
//     Tree.Skipped.
//
// A repository without docs/ is not an error: ReadDocs returns no files and
// a note. Callers branch on ErrNotRepository, ErrNoCommits and ErrNoWorkTree.
//
// # Session events
//
// See ReadEvents for the file format.
package source
