package daemon

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/search"
)

// Sources says where each setting of a loaded Config came from, by its
// dotted key ("search.fusion"): SourceFile, or "env NAME" for an environment
// override. A key that is absent kept its default.
type Sources map[string]string

// Where a setting came from.
const (
	SourceDefault = "default"
	SourceFile    = "file"
)

// Of returns where key's value came from.
func (s Sources) Of(key string) string {
	if v, ok := s[key]; ok {
		return v
	}
	return SourceDefault
}

// keyDocs are the one-line comments of the template, by dotted key. Lists of
// choices are derived from the packages that define them, so a new fusion
// mode or normalisation appears here without an edit.
var keyDocs = map[string]string{
	"daemon.socket":               `"" = $XDG_RUNTIME_DIR/ragd/ragd.sock (else $XDG_STATE_HOME/ragd/run/)`,
	"daemon.database":             `"" = $XDG_DATA_HOME/ragd/ragd.db; or "postgres://user@host/db" (password from PGPASSWORD or ~/.pgpass, never here)`,
	"daemon.max_body_bytes":       "larger request bodies get 413",
	"daemon.log_level":            "debug, info, warn, error",
	"daemon.owner":                `postgres: your name on sessions, votes, searches (measure counts yours); "" = the OS user (SQLite ignores it)`,
	"embedding.provider":          `"ollama" (its /api/embed), "openai" (any server of POST /v1/embeddings) or "builtin" (all-minilm-l6-v2 inside ragd: ragd model install)`,
	"embedding.host":              `ollama: "" = $OLLAMA_HOST, else http://127.0.0.1:11434`,
	"embedding.base_url":          "openai: the URL before /embeddings, e.g. http://127.0.0.1:8080/v1",
	"embedding.api_key_env":       "openai: the variable holding the API key (never the key here)",
	"embedding.api_key_file":      "openai: or a file holding it, readable by you only (chmod 600)",
	"embedding.send_dimensions":   `openai: send dims as "dimensions" (models that shorten vectors)`,
	"embedding.context_length":    "the model's input limit in tokens, longer texts are cut; 0 = the server's, else 512",
	"embedding.dims":              "the model's vector length; model + dims = the embedding space",
	"embedding.batch_size":        "texts per request",
	"embedding.concurrency":       "requests in flight while indexing",
	"embedding.index_timeout":     "per batch while indexing",
	"embedding.query_timeout":     "a search answers lexical-only after this",
	"embedding.document_prefix":   "unset = the model's known convention, shown; part of the embedding space",
	"embedding.query_prefix":      "unset = the model's known convention, shown",
	"embedding.threads":           "builtin: CPU cores indexing may use (searches run beside it)",
	"embedding.idle_unload":       "builtin: the model leaves memory after this long unused",
	"embedding.model_dir":         `builtin: "" = ~/.cache/ragd/models (ragd model install puts it there)`,
	"embedding.model_path":        `builtin: a local sentence-transformers BERT folder to run instead of a pinned model; model names it (prefixes), dims = its size`,
	"embedding.model_url":         `builtin: where serve fetches missing weights (each file's sha256 pinned); "" = the pinned URL, "off" = never`,
	"search.fusion":               search.FusionChoices(),
	"search.vector_weight":        "weighted: score = vector_weight*vector + lexical_weight*lexical",
	"search.threshold":            "weighted: hits below are dropped",
	"search.rrf_k":                "rrf: score = sum of 1/(rrf_k + rank)",
	"search.candidates":           "candidates per signal",
	"search.normalization":        "lexical scale: " + search.NormalizationChoices(),
	"search.fill":                 "score every candidate on both signals",
	"search.vectors":              "quantized (one-bit codes, then exact rescoring; projects of 20k+ vectors) or exact; SQLite only: postgres always searches its HNSW index",
	"search.prune_frequent_terms": "leave out words in half the chunks or more (bm25 weighs them 0) when a rarer word remains",
	"search.limit":                fmt.Sprintf("hits per answer when the request gives none (1..%d)", search.MaxLimit),
	"chunking.target":             "characters per chunk",
	"chunking.overlap":            "characters repeated from the previous chunk",
	"chunking.window":             "look-around for a paragraph or word break",
	"index.max_file_bytes":        "larger docs are skipped and reported",
	"index.work_tree":             "read docs from the working tree instead of HEAD",
	"index.inline_vectors":        "new vectors a reindex waits for; more are filled in the background (0 = wait for all)",
	"index.auto_debounce":         "quiet time before an opt-in auto-reindex runs",
	"index.exclude":               "globs of paths no project reads (each project adds its own: ragd layout)",
	"index.package_readmes":       "read README files in sub-folders (false: for no project)",
	"index.root_files":            "read prose files at the repository root (false: for no project)",
	"sessions.follow":             "transcripts to follow as written: " + followChoices(),
	"sessions.share":              "postgres: others' searches see your sessions too (SQLite ignores it)",
}

// unsetExample is shown, commented out, for an optional key that is unset:
// for the prefixes, the model's known convention, which is what applies.
func unsetExample(cfg Config, key string) string {
	doc, query := embedding.PrefixesFor(cfg.Embedding.Model)
	switch key {
	case "embedding.document_prefix":
		return tomlString(doc)
	case "embedding.query_prefix":
		return tomlString(query)
	}
	return `""`
}

// templateCommentColumn aligns the comments of the template.
const templateCommentColumn = 26

// Template renders cfg as a configuration file: every section and key of
// Config in its order, each with its comment. With sources, each line also
// says where its value came from; without, it is the documented file `ragd
// config --defaults` prints and a fresh config file starts from.
func Template(cfg Config, sources Sources) string {
	var b strings.Builder
	b.WriteString(`# ragd configuration ($XDG_CONFIG_HOME/ragd/config.toml).
# Every key is shown with its default; delete what you do not change.
# Environment overrides: ` + envNames() + `
# (OLLAMA_HOST is used when embedding.host is empty).
`)
	// A password in the database URL is never printed (`ragd config`
	// shows the loaded file and environment).
	cfg.Daemon.Database = ragd.RedactDatabase(cfg.Daemon.Database)
	// Nor credentials written into the embedding server's URL (refused
	// there anyway: a key goes in api_key_env or api_key_file).
	if cfg.Embedding.BaseURL != "" {
		cfg.Embedding.BaseURL = ragd.DisplayURL(cfg.Embedding.BaseURL)
	}
	v := reflect.ValueOf(cfg)
	for i := range v.NumField() {
		section := v.Type().Field(i).Tag.Get("toml")
		fmt.Fprintf(&b, "\n[%s]\n", section)
		sv := v.Field(i)
		for _, f := range sectionKeys(sv.Type()) {
			key := f.Tag.Get("toml")
			full := section + "." + key
			line, set := tomlValue(sv.FieldByIndex(f.Index))
			line = key + " = " + line
			if !set {
				line = "# " + key + " = " + unsetExample(cfg, full)
			}
			comment := keyDocs[full]
			if sources != nil {
				comment = strings.TrimSpace(comment + " [" + sources.Of(full) + "]")
			}
			if comment != "" {
				if n := utf8.RuneCountInString(line); n < templateCommentColumn-1 {
					line += strings.Repeat(" ", templateCommentColumn-1-n)
				}
				line += " # " + comment
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// tomlValue renders a setting as a TOML value; set is false for a nil
// pointer (an optional key left unset).
func tomlValue(v reflect.Value) (s string, set bool) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", false
		}
		v = v.Elem()
	}
	if d, ok := v.Interface().(Duration); ok {
		return tomlString(d.String()), true
	}
	switch v.Kind() {
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i], _ = tomlValue(v.Index(i))
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	case reflect.String:
		return tomlString(v.String()), true
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true
	case reflect.Int, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Float64:
		f := strconv.FormatFloat(v.Float(), 'g', -1, 64)
		if !strings.ContainsAny(f, ".eEn") { // TOML wants a float to look like one
			f += ".0"
		}
		return f, true
	}
	panic(fmt.Sprintf("config template: no TOML form for %s", v.Type()))
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// envNames lists the environment overrides, for the template's header.
func envNames() string {
	names := make([]string, len(envOverrides))
	for i, o := range envOverrides {
		names[i] = o.name
	}
	return strings.Join(names, ", ")
}
