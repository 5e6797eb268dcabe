package source

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ragd/ragd"
)

// Kinds of Rule: why a file was read into its scope. Their order is the
// order of precedence: what the user configured, what the project declares,
// what its layout shows.
const (
	// RuleConfigured is a file under the project's ADR folders or matched
	// by its include globs (ragd.Layout).
	RuleConfigured = "configured"
	// RuleDeclared is a file under a folder the project declares in a file
	// of its own: .adr-dir, .log4brains.yml, catalog-info.yaml, mkdocs.yml,
	// a Docusaurus config, book.toml, .readthedocs.yaml, antora.yml.
	RuleDeclared = "declared"
	// RuleADRFolder is a file under a folder named as decision records are
	// (adr, decisions, architecture-decisions, ...).
	RuleADRFolder = "adr folder"
	// RuleRFCFolder is a file under a folder of RFC-style proposals (rfcs,
	// keps, proposals, ...).
	RuleRFCFolder = "rfc folder"
	// RuleNumbered is a numbered record (NNNN-title.md, adr-NNN-*.md)
	// where such records gather.
	RuleNumbered = "numbered records"
	// RuleDocsFolder is a file under a documentation folder (docs, doc,
	// documentation, website, ...).
	RuleDocsFolder = "docs folder"
	// RuleRootFile is a prose file at the repository root.
	RuleRootFile = "root file"
	// RulePackageReadme is a README in a sub-folder.
	RulePackageReadme = "package README"
	// RuleProse is any other prose file.
	RuleProse = "other prose"
)

// Rule says why a file was read, and into which scope.
type Rule struct {
	// Kind is one of the Rule constants.
	Kind string `json:"kind"`
	// Dir is the folder the rule names ("doc/adr", "website/docs"); "" for
	// the root, a package README or other prose.
	Dir string `json:"dir,omitempty"`
	// From is the file that declares Dir, for RuleDeclared (".adr-dir").
	From string `json:"from,omitempty"`
}

// String describes the rule as a person reads it: "doc/adr (from
// .adr-dir)", "docs folder docs", "root file".
func (r Rule) String() string {
	switch {
	case r.From != "":
		return r.Dir + "/ (from " + r.From + ")"
	case r.Kind == RuleConfigured && r.Dir != "":
		return r.Dir + "/ (configured)"
	case r.Kind == RuleConfigured:
		return "included by the project's settings"
	case r.Dir != "":
		return r.Dir + "/ (" + r.Kind + ")"
	}
	return r.Kind
}

// Reasons for prose files the rules leave out, counted in Tree.LeftOut.
const (
	ReasonExcludedBySetting = "excluded by the project's settings"
	ReasonVendoredOrTest    = "vendored, generated or test material"
	ReasonLicence           = "licence file"
	ReasonVersionedCopy     = "versioned copy of the docs"
	ReasonRootFilesOff      = "root files are off for this project"
	ReasonPackageReadmesOff = "package READMEs are off for this project"
)

// proseExt maps the extensions of prose files, lower case, to whether
// they are read only inside documentation folders (plain text, which
// elsewhere is data: requirements.txt, robots.txt, test inputs).
var proseExt = map[string]bool{
	".md": false, ".markdown": false, ".mdx": false,
	".rst": false, ".rest": false,
	".adoc": false, ".asciidoc": false,
	".txt": true,
}

// ProseExtensions lists the extensions ReadDocs reads, lower case.
func ProseExtensions() []string {
	return []string{".md", ".markdown", ".mdx", ".rst", ".rest", ".adoc", ".asciidoc", ".txt"}
}

// adrFolders name folders of decision records; a folder whose name has the
// token adr or adrs ("historic-adrs") is one too.
var adrFolders = names("adr", "adrs", ".adr", ".adrs", "madr", "decisions", "decision-records", "decision-record",
	"decision-log", "architecture-decisions", "architecture-decision-records", "architecture-decision-record",
	"architectural-decisions", "architectural-decision-records")

// rfcFolders name folders of RFC-style proposals, one file or one folder a
// record.
var rfcFolders = names("rfc", "rfcs", "keps", "oteps", "peps", "jep", "jeps", "proposals", "enhancements")

// docsFolders name documentation folders, at any depth.
var docsFolders = names("docs", "doc", "documentation", "website", "site", "www", "content", "guides",
	"contributing", "spec", "specs", "book", "manual")

// leftOutFolders hold vendored, generated or test material.
var leftOutFolders = names("node_modules", "vendor", "third_party", "third-party", "thirdparty", "bower_components",
	"jspm_packages", "testdata", "test-data", "test", "tests", "__tests__", "__test__", "fixtures", "fixture",
	"__fixtures__", "snapshots", "__snapshots__", "generated", "__generated__", ".git", ".venv", "venv",
	"site-packages", ".tox")

// versionedFolders hold versioned copies of a site's docs (Docusaurus).
var versionedFolders = names("versioned_docs", "versioned_sidebars")

// textNames are the stems of plain-text files read wherever they are.
var textNames = names("readme", "changelog", "changes", "contributing", "install", "authors", "history",
	"news", "architecture", "security", "code_of_conduct", "governance", "maintainers", "releasing", "support")

func names(ns ...string) map[string]bool {
	m := make(map[string]bool, len(ns))
	for _, n := range ns {
		m[n] = true
	}
	return m
}

// stem is a file name without its extensions, lower case; a leading dot
// is part of the name (".adr-dir").
func stem(name string) string {
	name = strings.ToLower(name)
	start := 0
	if strings.HasPrefix(name, ".") {
		start = 1
	}
	if i := strings.IndexByte(name[start:], '.'); i >= 0 {
		return name[:start+i]
	}
	return name
}

// isLicence reports a licence-like file name: LICENSE, COPYING, NOTICE,
// GPL.txt, license.rst, LICENSE-MIT.md.
func isLicence(name string) bool {
	s := stem(name)
	for _, p := range []string{"license", "licence", "copying", "unlicense"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	switch s {
	case "notice", "patents", "copyright", "gpl", "lgpl", "agpl":
		return true
	}
	return false
}

// isADRName reports a folder of decision records by its name.
func isADRName(dir string) bool {
	d := strings.ToLower(dir)
	if adrFolders[d] {
		return true
	}
	for _, tok := range strings.FieldsFunc(d, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == ' ' }) {
		if tok == "adr" || tok == "adrs" {
			return true
		}
	}
	return false
}

// dirRule is a folder named by the user or declared by the project.
type dirRule struct {
	dir  string // git path, "" for the root
	from string // declaring file; "" when configured
}

func (d dirRule) holds(p string) bool { return d.dir == "" || strings.HasPrefix(p, d.dir+"/") }

// classifier decides, path by path, what ReadDocs reads.
type classifier struct {
	layout ragd.Layout
	// adr are the folders of decision records the user configured or, when
	// none are, the project declares; when set, the layout's ADR rules are
	// off.
	adr []dirRule
	// docs are the documentation folders the project declares.
	docs []dirRule
	// includeHits are the include patterns that matched a path.
	includeHits map[string]bool
}

// decision is the classifier's answer for one path.
type decision struct {
	scope  string // "" when not read
	rule   Rule
	reason string // why a prose file is left out; "" when read or not prose
	// report is, for a path not read (a link, a submodule, a nested
	// repository), the scope of the documentation folder it lies in: one
	// there is worth a word in Skipped, one elsewhere is not.
	report string
}

// skipScope is the scope a skip of d's path is listed under.
func (d decision) skipScope() string { return cmp.Or(d.scope, d.report) }

// reported reports whether a path not read is listed in Skipped.
func (d decision) reported() bool { return d.scope != "" || d.report != "" }

// classify applies the rules to path p, a canonical git path.
func (c *classifier) classify(p string) decision {
	base := path.Base(p)
	ext := strings.ToLower(path.Ext(base))
	docsOnly, prose := proseExt[ext]
	if !prose || !canonical(p) {
		return decision{}
	}
	if matchAny(c.layout.Exclude, p) {
		return decision{reason: ReasonExcludedBySetting}
	}
	included := c.matchInclude(p)
	dirs := strings.Split(p, "/")
	dirs = dirs[:len(dirs)-1]
	if !included {
		for _, d := range dirs {
			ld := strings.ToLower(d)
			if leftOutFolders[ld] {
				return decision{reason: ReasonVendoredOrTest}
			}
			if versionedFolders[ld] {
				return decision{reason: ReasonVersionedCopy}
			}
		}
		if isLicence(base) {
			return decision{reason: ReasonLicence}
		}
	}

	// Decision records: configured or declared folders, else the layout.
	if len(c.adr) > 0 {
		for _, d := range c.adr {
			if d.holds(p) {
				kind := RuleDeclared
				if d.from == "" {
					kind = RuleConfigured
				}
				return decision{scope: ragd.ScopeADR, rule: Rule{Kind: kind, Dir: d.dir, From: d.from}}
			}
		}
	} else {
		for i, d := range dirs {
			switch {
			case isADRName(d):
				return decision{scope: ragd.ScopeADR, rule: Rule{Kind: RuleADRFolder, Dir: strings.Join(dirs[:i+1], "/")}}
			case rfcFolders[strings.ToLower(d)]:
				return decision{scope: ragd.ScopeADR, rule: Rule{Kind: RuleRFCFolder, Dir: strings.Join(dirs[:i+1], "/")}}
			}
		}
	}

	var rule Rule
	inDocs := false
	for _, d := range c.docs {
		if d.holds(p) {
			rule, inDocs = Rule{Kind: RuleDeclared, Dir: d.dir, From: d.from}, true
			break
		}
	}
	if !inDocs {
		for i, d := range dirs {
			if docsFolders[strings.ToLower(d)] {
				rule, inDocs = Rule{Kind: RuleDocsFolder, Dir: strings.Join(dirs[:i+1], "/")}, true
				break
			}
		}
	}
	if docsOnly && !inDocs && !included && !textNames[stem(base)] {
		return decision{} // data, not prose
	}
	switch {
	case included && !inDocs:
		rule = Rule{Kind: RuleConfigured}
	case inDocs:
	case len(dirs) == 0:
		if c.layout.NoRootFiles {
			return decision{reason: ReasonRootFilesOff}
		}
		rule = Rule{Kind: RuleRootFile}
	case stem(base) == "readme":
		if c.layout.NoPackageReadmes {
			return decision{reason: ReasonPackageReadmesOff}
		}
		rule = Rule{Kind: RulePackageReadme}
	default:
		rule = Rule{Kind: RuleProse}
	}
	return decision{scope: ragd.ScopeDocs, rule: rule}
}

// numberedRecords decides which docs files are decision records by their
// names, where several gather in one folder: adr-NNN-*.md and ADR-N.md
// always, NNN-title.md when one of the folder's numbered files reads like a
// decision record (two of Status, Context, Decision, Consequences as
// headings). files are the docs-scope files read; it returns the indexes
// of those to move to scope adr.
func numberedRecords(files []File) []int {
	type group struct {
		named, numbered []int
		adrLike         bool
	}
	groups := map[string]*group{}
	for i, f := range files {
		if f.Scope != ragd.ScopeDocs || f.Rule.Kind == RuleConfigured {
			continue
		}
		base := path.Base(f.Path)
		named, numbered := recordName(base)
		if !named && !numbered {
			continue
		}
		dir := path.Dir(f.Path)
		g := groups[dir]
		if g == nil {
			g = &group{}
			groups[dir] = g
		}
		if named {
			g.named = append(g.named, i)
		} else {
			g.numbered = append(g.numbered, i)
			g.adrLike = g.adrLike || readsLikeADR(f.Content)
		}
	}
	var out []int
	for _, g := range groups {
		if len(g.named) >= minRecords {
			out = append(out, g.named...)
		}
		if len(g.numbered) >= minRecords && g.adrLike {
			out = append(out, g.numbered...)
		}
	}
	return out
}

// minRecords is how many numbered records make a folder of them: one
// numbered file is a chapter as often as a record.
const minRecords = 2

// recordName reports a decision record's name: named (adr-001-x.md,
// ADR-7.md, adr_12.md) or numbered (0001-title.md, 042_title.rst), a
// date (2023-08-23-post.md, a blog's) excepted.
func recordName(base string) (named, numbered bool) {
	s := strings.ToLower(base)
	if rest, ok := strings.CutPrefix(s, "adr"); ok {
		rest = strings.TrimLeft(rest, "-_ ")
		return digits(rest) > 0, false
	}
	n := digits(s)
	if n < 3 || n > 5 || n >= len(s) || (s[n] != '-' && s[n] != '_') {
		return false, false
	}
	// 2023-08-23-...: a date, not a number.
	if n == 4 && digits(s[n+1:]) == 2 {
		return false, false
	}
	return false, true
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// adrSections are the headings that make a text read like a decision
// record (Nygard's and MADR's templates).
var adrSections = names("status", "context", "decision", "consequences", "decision outcome",
	"considered options", "decision drivers", "context and problem statement")

// readsLikeADR reports whether content has at least two of adrSections as
// headings (markdown, AsciiDoc or a reStructuredText title line) or a
// "Status:" line.
func readsLikeADR(content []byte) bool {
	seen := map[string]bool{}
	for line := range strings.Lines(string(content)) {
		t := strings.TrimSpace(line)
		t = strings.TrimLeft(t, "#= *")
		t = strings.TrimRight(t, ":* ")
		t = strings.ToLower(strings.TrimSpace(t))
		if adrSections[t] {
			seen[t] = true
		} else if strings.HasPrefix(t, "status:") {
			seen["status"] = true
		}
		if len(seen) >= 2 {
			return true
		}
	}
	return false
}

// matchInclude reports whether an include pattern matches p, and notes
// the patterns that matched, for includeNotes.
func (c *classifier) matchInclude(p string) bool {
	included := false
	for _, pat := range c.layout.Include {
		if matchGlob(pat, p) {
			if c.includeHits == nil {
				c.includeHits = map[string]bool{}
			}
			c.includeHits[pat], included = true, true
		}
	}
	return included
}

// includeNotes names the include patterns that matched no prose file
// classified (a path outside the repository, a typo): a setting that
// does nothing is said, not kept in silence.
func (c *classifier) includeNotes() []string {
	var notes []string
	for _, pat := range c.layout.Include {
		if !c.includeHits[pat] {
			notes = append(notes, fmt.Sprintf("include %s matches no prose file in the repository (patterns are paths inside it; a leading / is its root)", quote(pat)))
		}
	}
	return notes
}

// matchAny reports whether any of patterns matches p (see matchGlob).
func matchAny(patterns []string, p string) bool {
	for _, pat := range patterns {
		if matchGlob(pat, p) {
			return true
		}
	}
	return false
}

// matchGlob reports whether the glob pattern matches the git path p or one
// of the folders it is in. A pattern without a slash matches a name at any
// depth; with one, it is anchored at the root ("/docs" and "docs/" name
// the folder). "**" matches any number of folders; other components are
// path.Match patterns. A malformed pattern matches nothing (Validate
// refuses it first).
func matchGlob(pattern, p string) bool {
	pattern = strings.TrimSuffix(pattern, "/")
	anchored := strings.Contains(pattern, "/")
	pattern = strings.TrimPrefix(pattern, "/")
	if pattern == "" {
		return false
	}
	parts := strings.Split(p, "/")
	pat := strings.Split(pattern, "/")
	if !anchored {
		for _, name := range parts {
			if ok, _ := path.Match(pattern, name); ok {
				return true
			}
		}
		return false
	}
	// Anchored: the pattern matches a leading run of parts.
	for n := 1; n <= len(parts); n++ {
		if matchParts(pat, parts[:n]) {
			return true
		}
	}
	return false
}

// matchParts matches pattern components against path components, "**"
// standing for any number of them. Recursion is bounded by the pattern's
// length times the path's.
func matchParts(pat, parts []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := range parts {
				if matchParts(pat, parts[i:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], parts[0]); !ok {
			return false
		}
		pat, parts = pat[1:], parts[1:]
	}
	return len(parts) == 0
}

// ValidateLayout checks a project's settings: globs that path.Match can
// read, at most maxPatterns of them, and ADR folders that are clean
// relative paths.
func ValidateLayout(l ragd.Layout) error {
	for _, set := range []struct {
		name string
		pats []string
	}{{"include", l.Include}, {"exclude", l.Exclude}} {
		if len(set.pats) > maxPatterns {
			return &LayoutError{Field: set.name, Problem: "too many patterns (at most 64)"}
		}
		for _, p := range set.pats {
			if strings.TrimSpace(strings.Trim(p, "/")) == "" {
				return &LayoutError{Field: set.name, Value: p, Problem: "empty pattern"}
			}
			if _, err := path.Match(strings.ReplaceAll(p, "**", "*"), ""); err != nil {
				return &LayoutError{Field: set.name, Value: p, Problem: "malformed pattern"}
			}
			if slices.Contains(strings.Split(p, "/"), "..") {
				// It could never match: paths are inside the repository,
				// as ADR folders are.
				return &LayoutError{Field: set.name, Value: p, Problem: "names paths outside the repository: patterns match paths inside it, relative to its root"}
			}
		}
	}
	if len(l.ADRDirs) > maxPatterns {
		return &LayoutError{Field: "adrDirs", Problem: "too many folders (at most 64)"}
	}
	for _, d := range l.ADRDirs {
		if _, ok := cleanDir("", d); !ok {
			return &LayoutError{Field: "adrDirs", Value: d, Problem: "not a folder inside the repository"}
		}
	}
	return nil
}

// maxPatterns bounds each list of a ragd.Layout: settings, not data.
const maxPatterns = 64

// LayoutError is a setting ValidateLayout refuses.
type LayoutError struct {
	Field, Value, Problem string
}

func (e *LayoutError) Error() string {
	if e.Value == "" {
		return e.Field + ": " + e.Problem
	}
	return e.Field + " " + quote(e.Value) + ": " + e.Problem
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// cleanDir resolves the folder name d, relative to the folder base (a git
// path, "" for the root), to a canonical git path; "" is the root. ok is
// false for a name that leaves the repository or is absolute.
func cleanDir(base, d string) (string, bool) {
	d = strings.TrimSpace(d)
	if d == "" || strings.HasPrefix(d, "/") || strings.ContainsRune(d, '\\') && strings.Contains(d, ":") {
		return "", false
	}
	p := path.Join(base, d)
	if p == "." {
		return "", true
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// ScopeOf reports whether path, a git path (slash-separated, relative to
// the repository root), names a document ReadDocs reads with no settings
// and no declaring file, and its scope, by the folder and name rules alone
// (numbered records are decided by ReadDocs, which sees their folder and
// content). Paths that are not in git's canonical form (leading "/", "."
// or ".." components, empty components) are refused rather than cleaned,
// since no tree entry can have one.
func ScopeOf(path string) (scope string, ok bool) {
	c := &classifier{}
	d := c.classify(path)
	return d.scope, d.scope != ""
}
