package source

import (
	"path"
	"strings"

	"github.com/ragd/ragd"
)

const (
	docsDir = "docs"
	adrDir  = "docs/adr"
)

// ScopeOf reports whether path, a git path (slash-separated, relative to the
// repository root), names a document ReadDocs reads, and its scope: "adr"
// under docs/adr/, "docs" anywhere else under docs/. Only markdown files
// qualify (.md or .markdown, extension in any case). Matching is exact and
// case-sensitive, as git paths are: docs/ADR/x.md is "docs", and so is
// docs/adrx.md. Paths that are not in git's canonical form (leading "/",
// "." or ".." components, empty components) are refused rather than
// cleaned, since no tree entry can have one.
func ScopeOf(path string) (scope string, ok bool) {
	if !strings.HasPrefix(path, docsDir+"/") || !isMarkdown(path) || !canonical(path) {
		return "", false
	}
	if strings.HasPrefix(path, adrDir+"/") {
		return ragd.ScopeADR, true
	}
	return ragd.ScopeDocs, true
}

// isMarkdown reports whether name has a markdown extension, in any case.
func isMarkdown(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

// canonical reports whether p is a clean relative git path.
func canonical(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

// Reasons given in Skipped. Tests and callers may compare against them.
const (
	ReasonSubmodule      = "submodule not read"
	ReasonNestedRepo     = "nested git repository not read"
	ReasonLFSPointer     = "Git LFS pointer: content is not in the repository"
	ReasonTooLarge       = "file too large"
	ReasonMissingObject  = "object missing from the object store (partial clone?)"
	ReasonLinkAbsolute   = "symlink not followed: absolute target"
	ReasonLinkOutside    = "symlink not followed: target outside the repository"
	ReasonLinkDangling   = "symlink not followed: target not found"
	ReasonLinkToLink     = "symlink not followed: target is a symlink"
	ReasonLinkToDir      = "symlink not followed: target is a directory"
	ReasonLinkOther      = "symlink not followed: target is not a regular file"
	ReasonInvalidName    = "invalid path in tree"
	ReasonNotRegularFile = "not a regular file"
	// ReasonBinary is a document whose content is not text, whatever its
	// name: indexed, it would be chunks of U+FFFD.
	ReasonBinary = "binary content, not text"
)

// linkTarget resolves the target of the symbolic link at linkPath (a git
// path) lexically, relative to the link's directory, as git checks it out.
// It returns the git path of the target, or a skip reason when the target
// is absolute or leaves the repository. It resolves lexically on purpose:
// the repository, not the machine's file system, decides what the link
// means.
func linkTarget(linkPath, target string) (string, string) {
	if target == "" {
		return "", ReasonLinkDangling
	}
	if path.IsAbs(target) {
		return "", ReasonLinkAbsolute
	}
	p := path.Join(path.Dir(linkPath), target)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", ReasonLinkOutside
	}
	return p, ""
}
