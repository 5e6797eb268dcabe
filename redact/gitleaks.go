package redact

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// replacedGitleaksRules are the gitleaks rules left out, with the reason.
var replacedGitleaksRules = map[string]string{
	// ragd's keyword rule (assignedSpans) covers values after secret
	// names, with placeholders and descriptive values left alone; the
	// gitleaks rule costs 60% of the scan time on real transcripts.
	"generic-api-key": "replaced by ragd's keyword-plus-entropy rule",
}

// gitleaksRules is the gitleaks default configuration, compiled once.
type gitleaksRules struct {
	rules  []config.Rule
	global []*config.Allowlist
	// always are the rules without keywords, run on every text.
	always []int
	// byKeyword maps a keyword's index in the trie to its rules.
	byKeyword [][]int
	trie      *ahocorasick.Trie
}

var loadGitleaks = sync.OnceValues(func() (*gitleaksRules, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return nil, fmt.Errorf("redact: reading the gitleaks default config: %w", err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, fmt.Errorf("redact: decoding the gitleaks default config: %w", err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("redact: compiling the gitleaks default config: %w", err)
	}
	g := &gitleaksRules{global: cfg.Allowlists}
	kw := map[string]int{}
	var words []string
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		if r.Regex == nil || r.SkipReport || replacedGitleaksRules[id] != "" {
			continue
		}
		i := len(g.rules)
		g.rules = append(g.rules, r)
		if len(r.Keywords) == 0 {
			g.always = append(g.always, i)
			continue
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			n, ok := kw[k]
			if !ok {
				n = len(words)
				kw[k] = n
				words = append(words, k)
				g.byKeyword = append(g.byKeyword, nil)
			}
			g.byKeyword[n] = append(g.byKeyword[n], i)
		}
	}
	g.trie = ahocorasick.NewTrieBuilder().AddStrings(words).Build()
	return g, nil
})

// mustGitleaks returns the compiled rules; the configuration is embedded
// in the module, so failing to compile it is a build defect.
func mustGitleaks() *gitleaksRules {
	g, err := loadGitleaks()
	if err != nil {
		panic(err)
	}
	return g
}

// gitleaksSpans runs the gitleaks rules whose keywords s contains (case
// insensitively), as gitleaks' detector does: the rule's secret group
// (or its first non-empty group, or the whole match), its entropy
// threshold, then the global and the rule's allowlists.
func gitleaksSpans(s string, prio int, out []span) []span {
	g := mustGitleaks()
	lower := asciiLower(s)
	var run []int
	for _, m := range g.trie.MatchString(lower) {
		run = append(run, g.byKeyword[m.Pattern()]...)
	}
	run = append(run, g.always...)
	slices.Sort(run)
	run = slices.Compact(run)
	for _, i := range run {
		r := &g.rules[i]
		// A match without submatches is several times cheaper, and most
		// texts that hold a keyword hold no match.
		if !r.Regex.MatchString(s) {
			continue
		}
		for _, loc := range r.Regex.FindAllStringSubmatchIndex(s, -1) {
			match := strings.Trim(s[loc[0]:loc[1]], "\n")
			start, end := loc[0], loc[1]
			if g := r.SecretGroup; g > 0 && 2*g+1 < len(loc) && loc[2*g] >= 0 {
				start, end = loc[2*g], loc[2*g+1]
			} else if g == 0 {
				for k := 2; k+1 < len(loc); k += 2 {
					if loc[k] >= 0 && loc[k+1] > loc[k] {
						start, end = loc[k], loc[k+1]
						break
					}
				}
			}
			secret := s[start:end]
			if r.Entropy != 0 && shannon(secret) <= r.Entropy {
				continue
			}
			line := lineAround(s, loc[0], loc[1])
			if allowed(g.global, secret, match, line) || allowed(r.Allowlists, secret, match, line) {
				continue
			}
			out = append(out, span{start: start, end: end, kind: r.RuleID, prio: prio})
		}
	}
	return out
}

// allowed applies gitleaks allowlists to a finding the way its detector
// does for text without a path or commit: a regex on the secret, the
// match or the line, and stop words in the secret.
func allowed(lists []*config.Allowlist, secret, match, line string) bool {
	for _, a := range lists {
		target := secret
		switch a.RegexTarget {
		case "match":
			target = match
		case "line":
			target = line
		}
		re := a.RegexAllowed(target)
		stop, _ := a.ContainsStopWord(secret)
		if a.MatchCondition == config.AllowlistMatchAnd {
			// Commits and paths never match a text that has neither.
			if len(a.Commits) > 0 || len(a.Paths) > 0 {
				continue
			}
			if (len(a.Regexes) == 0 || re) && (len(a.StopWords) == 0 || stop) && (len(a.Regexes) > 0 || len(a.StopWords) > 0) {
				return true
			}
			continue
		}
		if re || stop {
			return true
		}
	}
	return false
}

// lineAround returns the line(s) of s holding s[start:end].
func lineAround(s string, start, end int) string {
	i := strings.LastIndexByte(s[:start], '\n') + 1
	j := strings.IndexByte(s[end:], '\n')
	if j < 0 {
		return s[i:]
	}
	return s[i : end+j]
}

// asciiLower lower-cases the ASCII letters of s, keeping every offset.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// shannon is the Shannon entropy of s in bits per byte.
func shannon(s string) float64 {
	var freq [256]int
	for i := 0; i < len(s); i++ {
		freq[s[i]]++
	}
	h, n := 0.0, float64(len(s))
	for _, c := range freq {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// Kinds returns every kind the rules can report, sorted: ragd's own and
// the gitleaks rule ids.
func Kinds() []string {
	set := map[string]bool{KindAssignedValue: true}
	for _, r := range ownRules {
		set[r.kind] = true
	}
	for _, r := range mustGitleaks().rules {
		set[r.RuleID] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Load compiles the rules now rather than at the first redaction (about
// a tenth of a second: the gitleaks configuration is parsed and its
// expressions compiled once per process). A daemon calls it as it starts.
func Load() error {
	_, err := loadGitleaks()
	return err
}
