package ragd

import "slices"

// Layout is a project's own settings for where its documentation is: what
// the user configured, which comes before what the project declares and
// what its layout shows. The zero value reads everything the rules find.
type Layout struct {
	// Include are globs of paths read even where the rules leave them out
	// (a test folder, versioned copies of the docs). A pattern without a
	// slash matches a name at any depth; one with a slash is anchored at
	// the repository root; "**" matches any number of folders; a pattern
	// that matches a folder matches everything under it.
	Include []string `json:"include,omitempty"`
	// Exclude are globs of paths never read, whatever else says.
	Exclude []string `json:"exclude,omitempty"`
	// ADRDirs are the folders of the project's decision records. When set,
	// they replace what the project declares (.adr-dir and the like) and
	// what the layout shows: only prose under them is scope adr.
	ADRDirs []string `json:"adrDirs,omitempty"`
	// NoPackageReadmes leaves out README files in sub-folders that are not
	// documentation folders.
	NoPackageReadmes bool `json:"noPackageReadmes,omitempty"`
	// NoRootFiles leaves out prose files at the repository root (README,
	// CONTRIBUTING, ARCHITECTURE, ...).
	NoRootFiles bool `json:"noRootFiles,omitempty"`
}

// IsZero reports whether l changes nothing.
func (l Layout) IsZero() bool {
	return len(l.Include) == 0 && len(l.Exclude) == 0 && len(l.ADRDirs) == 0 && !l.NoPackageReadmes && !l.NoRootFiles
}

// Equal reports whether l and o are the same settings.
func (l Layout) Equal(o Layout) bool {
	return slices.Equal(l.Include, o.Include) && slices.Equal(l.Exclude, o.Exclude) &&
		slices.Equal(l.ADRDirs, o.ADRDirs) && l.NoPackageReadmes == o.NoPackageReadmes && l.NoRootFiles == o.NoRootFiles
}
