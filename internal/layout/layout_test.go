// Package layout holds the test that keeps ragd's dependencies pointing one
// way (docs/adr/0008-package-layout.md): it reads every package's imports
// and fails when one points where its layer must not look.
package layout

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ragd/ragd"

// rules lists, per package (relative to the module root, "" for the root),
// the imports it must not have: project packages by relative path, other
// packages by import path.
//
// The packages below the daemon speak the domain's types, never the wire's
// (package api): the daemon and the client convert at the edge.
var rules = map[string][]string{
	"":         {"*"}, // the domain imports nothing of the project
	"api":      {"*-ragd"},
	"client":   {"*-ragd-api", "database/sql"},
	"chunking": {"*", "database/sql", "net/http"},
	"lexical":  {"*", "net/http"},
	// transcript reads other tools' SQLite files (Cursor, OpenCode, Crush)
	// through database/sql, read-only from a copy: never ragd's store.
	"transcript": {"*-ragd-redact", "net/http"},
	"redact":     {"*-ragd", "database/sql", "net/http"},
	"source":     {"*-ragd", "database/sql", "net/http"},
	"store":      {"api", "search", "index", "daemon", "client", "eval", "embedding", "net/http"},
	// A second engine is the SQLite one's peer: it knows neither SQLite
	// (database/sql) nor the layers above it.
	"store/postgres": {"api", "store", "search", "index", "daemon", "client", "eval", "embedding", "net/http", "database/sql"},
	// The engines' shared rules: no SQL, nothing of the project but the
	// domain and the lexical analysis.
	"store/rules":        {"*-ragd-lexical", "database/sql", "net/http"},
	"internal/storetest": {"store", "store/postgres", "daemon"},
	// The contract names no engine: the daemon and the suite import it
	// without linking one.
	"engine":    {"api", "store", "store/postgres", "daemon", "client", "eval", "database/sql", "net/http"},
	"search":    {"api", "store", "index", "daemon", "client", "eval", "database/sql", "net/http"},
	"index":     {"api", "store", "search", "daemon", "client", "eval", "net/http"},
	"embedding": {"api", "store", "search", "index", "daemon", "client", "database/sql"},
	"mcpserver": {"*-ragd-api-client", "database/sql"},
	"daemon":    {"client", "eval", "mcpserver"},
	// browse shows what the index holds: through internal/terminal, so
	// that nothing from a file or a session reaches the terminal raw.
	"browse": {"*-ragd-api-client-internal/terminal", "database/sql"},
	// An evaluation runs the index and the search in process: on their
	// types, not the socket's.
	"eval": {"api", "daemon", "client", "mcpserver"},
}

func TestImportsPointOneWay(t *testing.T) {
	root := filepath.Join("..", "..")
	imports := packageImports(t, root)
	if len(imports) < 10 {
		t.Fatalf("found %d packages under %s: not the module root?", len(imports), root)
	}
	for pkg, forbidden := range rules {
		got, ok := imports[pkg]
		if !ok {
			continue // a package that does not exist (yet) breaks no rule
		}
		for imp := range got {
			if rel, project := strings.CutPrefix(imp, module); project {
				rel = strings.TrimPrefix(rel, "/")
				if forbids(forbidden, rel, true) {
					t.Errorf("package %q imports %q: its layer must not (ADR 0008)", pkg, rel)
				}
			} else if forbids(forbidden, imp, false) {
				t.Errorf("package %q imports %q: its layer must not (ADR 0008)", pkg, imp)
			}
		}
	}
}

// forbids reports whether imp breaks rule list f. "*" forbids every project
// package; "*-a-b" every project package but a and b ("ragd" is the root).
func forbids(f []string, imp string, project bool) bool {
	for _, r := range f {
		if rest, ok := strings.CutPrefix(r, "*"); ok {
			if !project {
				continue
			}
			allowed := strings.Split(strings.TrimPrefix(rest, "-"), "-")
			name := imp
			if name == "" {
				name = "ragd"
			}
			if !slices.Contains(allowed, name) {
				return true
			}
			continue
		}
		if r == imp {
			return true
		}
	}
	return false
}

// packageImports maps each package directory (relative, "" for the root) to
// the imports of its non-test Go files.
func packageImports(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		if rel == "." {
			rel = ""
		}
		if out[rel] == nil {
			out[rel] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			out[rel][strings.Trim(imp.Path.Value, `"`)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
