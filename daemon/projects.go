package daemon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/lexical"
	"github.com/ragd/ragd/source"
)

func (d *Daemon) projectInfo(p ragd.Project) api.ProjectInfo {
	stale := d.watcher.staleScopes(p)
	if stale == nil {
		stale = []string{}
	}
	return api.ProjectInfo{ID: p.Name, Path: p.Path, AutoReindex: p.AutoReindex, CreatedAt: p.CreatedAt, Stale: stale,
		Language: p.LanguageInForce(), LanguageSetting: p.Language, Settings: api.FromLayoutSettings(p.Layout)}
}

// withLayout adds to info what the rules find in p's repository now. A
// repository that cannot be read is no error here: the reindex says why.
func (d *Daemon) withLayout(ctx context.Context, info api.ProjectInfo, p ragd.Project) api.ProjectInfo {
	if l, err := d.indexer.Layout(ctx, p); err == nil {
		info.Layout = api.FromLayoutReport(l)
	}
	return info
}

// project resolves the {project} path value: a name, or a URL-escaped path.
func (d *Daemon) project(r *http.Request) (ragd.Project, error) {
	id := r.PathValue("project")
	p, err := d.store.Project(r.Context(), id)
	if errors.Is(err, ragd.ErrNotFound) {
		return p, notFound("unknown project %q: register it with `ragd add PATH` (GET /v1/projects lists them)", id)
	}
	return p, err
}

func (d *Daemon) handleListProjects(w http.ResponseWriter, r *http.Request) error {
	ps, err := d.store.Projects(r.Context())
	if err != nil {
		return err
	}
	out := make([]api.ProjectInfo, 0, len(ps))
	for _, p := range ps {
		out = append(out, d.projectInfo(p))
	}
	writeJSON(w, http.StatusOK, map[string]any{"projects": out})
	return nil
}

func (d *Daemon) handleGetProject(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, d.projectInfo(p))
	return nil
}

func (d *Daemon) handleAddProject(w http.ResponseWriter, r *http.Request) error {
	var req api.AddProjectRequest
	if err := d.decodeJSON(w, r, &req); err != nil {
		return err
	}
	if req.Path == "" {
		return badRequest("path: required, the path of a git repository")
	}
	if !filepath.IsAbs(req.Path) {
		return badRequest("path %q: must be absolute (the daemon does not know your working directory)", req.Path)
	}
	root, err := workTreeRoot(req.Path)
	if err != nil {
		return badRequest("path %q: %v", req.Path, err)
	}
	if req.Language != "" {
		if _, err := lexical.ParseLanguage(req.Language); err != nil {
			return badRequest("language: %v", err)
		}
	}
	var layout ragd.Layout
	if req.Settings != nil {
		layout = req.Settings.Layout()
		if err := source.ValidateLayout(layout); err != nil {
			return badRequest("settings: %v", err)
		}
	}
	name := req.Name
	if name != "" && !ragd.ValidProjectName(name) {
		return badRequest("name %q: use 1 to 64 of a-z, 0-9, '-', '_', '.', starting with a letter or digit", name)
	}
	if existing, err := d.store.Project(r.Context(), root); err == nil {
		return conflict(api.CodeExists, "%s is already registered as project %q", root, existing.Name)
	}
	var p ragd.Project
	if name != "" {
		p, err = d.store.AddProject(r.Context(), name, root)
	} else {
		// Derive a name from the folder; on a clash, number it.
		base := projectName(filepath.Base(root))
		for i := 1; ; i++ {
			name = base
			if i > 1 {
				name = base + "-" + strconv.Itoa(i)
			}
			p, err = d.store.AddProject(r.Context(), name, root)
			if !errors.Is(err, ragd.ErrExists) || i >= 100 {
				break
			}
		}
	}
	if err != nil {
		return err
	}
	if req.AutoReindex {
		if err := d.store.SetAutoReindex(r.Context(), p.ID, true); err != nil {
			return err
		}
		p.AutoReindex = true
	}
	if req.Language != "" {
		ch, err := d.store.SetLanguage(r.Context(), p.ID, req.Language)
		if err != nil {
			return fmt.Errorf("project %s registered, language not set: %w", p.Name, err)
		}
		p = ch.Project
	}
	if !layout.IsZero() {
		if err := d.store.SetLayout(r.Context(), p.ID, layout); err != nil {
			return fmt.Errorf("project %s registered, settings not set: %w", p.Name, err)
		}
		p.Layout = layout
	}
	d.watcher.add(p)
	writeJSON(w, http.StatusCreated, d.withLayout(r.Context(), d.projectInfo(p), p))
	return nil
}

// workTreeRoot is the one path a repository is registered by, however it
// is named: the top-level folder of its work tree (source.Root), also when
// path is the work tree's .git folder, which source.Root takes for a bare
// repository.
func workTreeRoot(path string) (string, error) {
	root, err := source.Root(path)
	if err != nil || filepath.Base(root) != ".git" {
		return root, err
	}
	if parent, err := source.Root(filepath.Dir(root)); err == nil && parent == filepath.Dir(root) {
		return parent, nil
	}
	return root, nil
}

// projectName turns a folder name into a valid project name.
func projectName(folder string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(folder) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		case b.Len() > 0 && (r == '-' || r == '_' || r == '.' || r == ' '):
			b.WriteByte('-')
		}
		if b.Len() >= 48 {
			break
		}
	}
	if b.Len() == 0 {
		return "project"
	}
	return b.String()
}

func (d *Daemon) handlePatchProject(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	var req api.PatchProjectRequest
	if err := d.decodeJSON(w, r, &req); err != nil {
		return err
	}
	if req.AutoReindex == nil && req.Language == nil && req.Settings == nil {
		return badRequest("nothing to change: give autoReindex, language or settings")
	}
	var layout ragd.Layout
	if req.Settings != nil {
		layout = req.Settings.Layout()
		if err := source.ValidateLayout(layout); err != nil {
			return badRequest("settings: %v", err)
		}
	}
	if req.Language != nil {
		// First: it is the change that can be refused (mid-reindex).
		ch, err := d.indexer.SetLanguage(r.Context(), p, *req.Language)
		if err != nil {
			return err
		}
		p = ch.Project
	}
	if req.AutoReindex != nil {
		if err := d.store.SetAutoReindex(r.Context(), p.ID, *req.AutoReindex); err != nil {
			return err
		}
		p.AutoReindex = *req.AutoReindex
		d.watcher.add(p)
	}
	info := d.projectInfo(p)
	if req.Settings != nil {
		if err := d.store.SetLayout(r.Context(), p.ID, layout); err != nil {
			return err
		}
		p.Layout = layout
		// What is read changed: the watcher's copy of the project reads
		// by the new settings, and its stale scopes say so at once.
		d.watcher.add(p)
		d.watcher.refresh(p.ID)
		info = d.withLayout(r.Context(), d.projectInfo(p), p)
	}
	writeJSON(w, http.StatusOK, info)
	return nil
}

func (d *Daemon) handleRemoveProject(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	d.watcher.remove(p)
	gone, err := d.store.RemoveProject(r.Context(), p.ID)
	if err != nil {
		return fmt.Errorf("remove project %s: %w", p.Name, err)
	}
	writeJSON(w, http.StatusOK, api.Removed{Removed: p.Name, TelemetrySearches: gone.Searches, TelemetryVotes: gone.Votes})
	return nil
}
