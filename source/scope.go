package source

import (
	"path"
	"strings"
)

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
