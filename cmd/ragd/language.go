package main

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/api"
)

var languageCommand = command{
	name:    "language",
	summary: "show or set the language of a project's keyword index",
	usage: `Usage: ragd language [LANGUAGE|auto] [flags]

Show the language the project's keyword index is analysed in (stemming and
stop words), or set it: english, russian, portuguese, spanish, german,
french, or simple (no stemming); auto detects it from the text at the next
index. A change rebuilds the project's keyword index from its stored chunks
at once; nothing is embedded again. It is refused while a reindex runs.
Russian words are stemmed as Russian in every language but simple, so an
English project with Russian notes still finds their inflections.
`,
	examples: `  ragd language
  ragd language russian --project notes
  ragd language auto
`,
	run: cmdLanguage,
}

// cmdLanguage shows a project's language, or sets it ("auto": detect it
// from the text). A change rebuilds the project's keyword index from its
// stored chunks; nothing is embedded again.
func cmdLanguage(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	e.projectFlag(fs)
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("language takes at most one LANGUAGE, got %d", len(pos))
	}
	c, id, err := e.projectClient(ctx)
	if err != nil {
		return err
	}
	var p *api.ProjectInfo
	if len(pos) == 0 {
		list, err := c.Projects(ctx)
		if err != nil {
			return err
		}
		for i := range list {
			if list[i].ID == id {
				p = &list[i]
			}
		}
		if p == nil {
			return fmt.Errorf("project %s is not registered", id)
		}
	} else {
		lang := pos[0]
		if lang == "auto" {
			lang = ""
		}
		if p, err = c.PatchProject(ctx, id, api.PatchProjectRequest{Language: &lang}); err != nil {
			return err
		}
	}
	if e.json {
		return e.printJSON(p)
	}
	fmt.Fprintf(e.stdout, "project %s: language %s\n", p.ID, languageLabel(p.Language, p.LanguageSetting))
	return nil
}
