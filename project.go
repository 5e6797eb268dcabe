package ragd

import (
	"strings"
	"time"
)

// Project is one registered git repository.
type Project struct {
	ID int64
	// Name is the project's short public id.
	Name        string
	Path        string
	AutoReindex bool
	CreatedAt   time.Time
	// Language is the language setting of the lexical index: a name of the
	// lexical package's languages, or "" to detect it from the text.
	Language string
	// LexicalLanguage is the language the lexical index is analysed with:
	// the setting, or the one detected at the first index; "" until then.
	LexicalLanguage string
	// Layout is where the project's docs are, as its user says.
	Layout Layout
}

// LanguageInForce is the language the project's lexical index is, or at its
// first index will be, analysed with: LexicalLanguage once decided, else
// the setting; "" when it waits for the text to decide.
func (p Project) LanguageInForce() string {
	if p.LexicalLanguage != "" {
		return p.LexicalLanguage
	}
	return p.Language
}

// ValidProjectName reports whether name can be a project's short id:
// 1 to 64 of a-z, 0-9, '-', '_' and '.', starting with a letter or digit.
func ValidProjectName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || i > 0 && strings.ContainsRune("-_.", r)
		if !ok {
			return false
		}
	}
	return true
}
