package source

import (
	"bytes"
	"path"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"
)

// Declaration is a folder a project names in a file of its own as where its
// decision records or its docs are.
type Declaration struct {
	// File is the declaring file's git path (".adr-dir", "doc/book.toml").
	File string `json:"file"`
	// Dir is the folder it names, resolved relative to File's folder; ""
	// is the root.
	Dir string `json:"dir"`
	// Scope is the scope of the prose under Dir: adr or docs.
	Scope string `json:"scope"`
	// Missing reports a folder that does not exist or holds no prose
	// (a stale declaration): it is not used.
	Missing bool `json:"missing,omitempty"`
	// Outside reports a folder outside the repository (an absolute path,
	// one above its root): Dir is then the name as written, and it is not
	// used (Missing is set too).
	Outside bool `json:"outside,omitempty"`
}

// declFile is a file name that declares where a project's docs are, and
// how to read it.
type declFile struct {
	scope string
	parse func(content []byte) []string // the folders named, relative to the file
	// guess marks a parser that reads candidates out of a program (a
	// Docusaurus config): those that hold no prose are dropped, not
	// reported as stale.
	guess bool
}

// declFiles are the declaring files by base name.
var declFiles = map[string]declFile{
	".adr-dir":              {"adr", parseADRDir, false},
	".log4brains.yml":       {"adr", parseLog4brains, false},
	".log4brains.yaml":      {"adr", parseLog4brains, false},
	"catalog-info.yaml":     {"adr", parseBackstage, false},
	"catalog-info.yml":      {"adr", parseBackstage, false},
	"mkdocs.yml":            {"docs", parseMkDocs, false},
	"mkdocs.yaml":           {"docs", parseMkDocs, false},
	"book.toml":             {"docs", parseMdBook, false},
	".readthedocs.yaml":     {"docs", parseReadTheDocs, false},
	".readthedocs.yml":      {"docs", parseReadTheDocs, false},
	"antora.yml":            {"docs", parseAntora, false},
	"docusaurus.config.js":  {"docs", parseDocusaurus, false},
	"docusaurus.config.ts":  {"docs", parseDocusaurus, false},
	"docusaurus.config.mjs": {"docs", parseDocusaurus, true},
	"docusaurus.config.cjs": {"docs", parseDocusaurus, true},
}

// isDeclFile reports whether base names a declaring file.
func isDeclFile(base string) bool {
	_, ok := declFiles[base]
	return ok
}

// maxDeclBytes bounds a declaring file read: a configuration, not data.
const maxDeclBytes = 256 << 10

// declarations reads the declaring files at the given paths through read
// and resolves the folders they name. hasProse reports whether a folder
// holds prose files; a declaration of one that does not is Missing.
func declarations(paths []string, read func(p string) ([]byte, bool), hasProse func(dir string) bool) []Declaration {
	var out []Declaration
	seen := map[[2]string]bool{}
	for _, p := range paths {
		df := declFiles[path.Base(p)]
		content, ok := read(p)
		if !ok || df.parse == nil {
			continue
		}
		base := path.Dir(p)
		if base == "." {
			base = ""
		}
		for _, d := range df.parse(content) {
			dir, ok := cleanDir(base, d)
			if !ok && strings.TrimSpace(d) != "" && !df.guess {
				// Named, but not in the repository: said, not used.
				d = strings.TrimSpace(d)
				if !seen[[2]string{df.scope, "\x00" + d}] {
					seen[[2]string{df.scope, "\x00" + d}] = true
					out = append(out, Declaration{File: p, Dir: d, Scope: df.scope, Missing: true, Outside: true})
				}
				continue
			}
			if !ok || seen[[2]string{df.scope, dir}] {
				continue
			}
			seen[[2]string{df.scope, dir}] = true
			missing := !hasProse(dir)
			if missing && df.guess {
				continue
			}
			out = append(out, Declaration{File: p, Dir: dir, Scope: df.scope, Missing: missing})
		}
	}
	return out
}

// parseADRDir reads adr-tools' .adr-dir: one line, the folder.
func parseADRDir(b []byte) []string {
	line, _, _ := strings.Cut(string(b), "\n")
	if line = strings.TrimSpace(line); line != "" {
		return []string{line}
	}
	return nil
}

// parseLog4brains reads project.adrFolder and project.packages[].adrFolder.
func parseLog4brains(b []byte) []string {
	var doc struct {
		Project struct {
			ADRFolder string `yaml:"adrFolder"`
			Packages  []struct {
				ADRFolder string `yaml:"adrFolder"`
			} `yaml:"packages"`
		} `yaml:"project"`
	}
	if yaml.Unmarshal(b, &doc) != nil {
		return nil
	}
	var out []string
	if doc.Project.ADRFolder != "" {
		out = append(out, doc.Project.ADRFolder)
	}
	for _, p := range doc.Project.Packages {
		if p.ADRFolder != "" {
			out = append(out, p.ADRFolder)
		}
	}
	return out
}

// parseBackstage reads the backstage.io/adr-location annotation of every
// document of a catalog-info.yaml.
func parseBackstage(b []byte) []string {
	var out []string
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for range 64 { // a catalog file holds a handful of entities
		var doc struct {
			Metadata struct {
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"metadata"`
		}
		if dec.Decode(&doc) != nil {
			break
		}
		if loc := doc.Metadata.Annotations["backstage.io/adr-location"]; loc != "" {
			out = append(out, loc)
		}
	}
	return out
}

// mkdocsDocsDir finds docs_dir in mkdocs.yml by its line: the file often
// has tags (!!python/name:...) that a YAML decoder refuses.
var mkdocsDocsDir = regexp.MustCompile(`(?m)^docs_dir:\s*["']?([^"'#\r\n]+?)["']?\s*(?:#.*)?$`)

// parseMkDocs reads docs_dir, "docs" when absent (MkDocs' default).
func parseMkDocs(b []byte) []string {
	if m := mkdocsDocsDir.FindSubmatch(b); m != nil {
		return []string{string(m[1])}
	}
	return []string{"docs"}
}

// parseMdBook reads [book] src, "src" when absent (mdBook's default).
func parseMdBook(b []byte) []string {
	var doc struct {
		Book struct {
			Src string `toml:"src"`
		} `toml:"book"`
	}
	if _, err := toml.Decode(string(b), &doc); err != nil {
		return nil
	}
	if doc.Book.Src == "" {
		return []string{"src"}
	}
	return []string{doc.Book.Src}
}

// parseReadTheDocs reads the folder of sphinx.configuration (conf.py) or
// of mkdocs.configuration. The paths are relative to the repository root,
// where the file must sit.
func parseReadTheDocs(b []byte) []string {
	var doc struct {
		Sphinx struct {
			Configuration string `yaml:"configuration"`
		} `yaml:"sphinx"`
		MkDocs struct {
			Configuration string `yaml:"configuration"`
		} `yaml:"mkdocs"`
	}
	if yaml.Unmarshal(b, &doc) != nil {
		return nil
	}
	var out []string
	for _, c := range []string{doc.Sphinx.Configuration, doc.MkDocs.Configuration} {
		if c != "" {
			out = append(out, path.Dir(c))
		}
	}
	return out
}

// parseAntora: an Antora component's pages are under the folder of its
// antora.yml, in modules/.
func parseAntora([]byte) []string { return []string{"modules"} }

// docusaurusPath finds `path: '...'` settings in a Docusaurus config (a
// program, not data: only string literals are read).
var docusaurusPath = regexp.MustCompile(`\bpath:\s*["']([^"'\r\n]+)["']`)

// parseDocusaurus reads the docs plugin's path settings, and "docs" (its
// default). Folders that hold no prose are dropped by the caller as
// missing: a path: setting of another plugin names a folder of no docs.
func parseDocusaurus(b []byte) []string {
	out := []string{"docs"}
	for _, m := range docusaurusPath.FindAllSubmatch(b, 16) {
		out = append(out, string(m[1]))
	}
	return out
}
