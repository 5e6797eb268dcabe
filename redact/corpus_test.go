package redact_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/secretcorpus"
	"github.com/ragd/ragd/redact"
)

// corpusPerKind is how many of each kind the corpus tests plant.
const corpusPerKind = 5

// TestCorpus redacts the generated corpus as plain text, as text holding
// JSON (a tool call's input) and as a JSON document (a payload): every
// secret must go, every benign value stay. Targets: 99% each.
func TestCorpus(t *testing.T) {
	secrets, benign := secretcorpus.Generate(23, corpusPerKind)
	forms := map[string]func(string) string{
		"text": func(s string) string { return redact.String(s, nil) },
		"escaped": func(s string) string {
			b, _ := json.Marshal(map[string]string{"command": s})
			return redact.String("Bash "+string(b), nil)
		},
		"json": func(s string) string {
			b, _ := json.Marshal(map[string]any{"input": map[string]string{"command": s}})
			return string(redact.JSON(b, nil))
		},
	}
	for name, fn := range forms {
		t.Run(name, func(t *testing.T) {
			missed := map[string]int{}
			total := map[string]int{}
			for _, s := range secrets {
				total[s.Kind]++
				out := fn(s.Text)
				if strings.Contains(out, s.Value) || strings.Contains(out, jsonInner(s.Value)) {
					missed[s.Kind]++
					t.Logf("missed %v in %q", s, out)
				}
			}
			altered := 0
			for _, b := range benign {
				var want string
				switch name {
				case "text":
					want = b.Text
				default:
					want = jsonInner(b.Text)
				}
				if out := fn(b.Text); !strings.Contains(out, want) {
					altered++
					t.Logf("altered benign %s: %q -> %q", b.Kind, b.Text, out)
				}
			}
			n := 0
			for _, c := range missed {
				n += c
			}
			recall := 1 - float64(n)/float64(len(secrets))
			kept := 1 - float64(altered)/float64(len(benign))
			t.Logf("%s: recall %.1f%% (%d of %d secrets, %d kinds), benign kept %.1f%% (%d of %d)", name, 100*recall, len(secrets)-n, len(secrets), len(total), 100*kept, len(benign)-altered, len(benign))
			if len(missed) > 0 {
				t.Logf("kinds missed: %s", byKind(missed, total))
			}
			if recall < 0.99 || kept < 0.99 {
				t.Errorf("%s: recall %.3f, benign kept %.3f: want both >= 0.99", name, recall, kept)
			}
		})
	}
}

func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func byKind(missed, total map[string]int) string {
	var ks []string
	for k := range missed {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s %d/%d", k, missed[k], total[k]))
	}
	return strings.Join(parts, ", ")
}
