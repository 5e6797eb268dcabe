package embedding

import "testing"

func TestSpace(t *testing.T) {
	tests := []struct {
		model string
		dims  int
		want  string
	}{
		{"nomic-embed-text", 768, "nomic-embed-text/768"},
		{"Nomic-Embed-Text:latest", 768, "nomic-embed-text/768"},
		{"nomic-embed-text:v1.5", 768, "nomic-embed-text:v1.5/768"},
		{"localhost:5000/org/model", 64, "localhost:5000/org/model/64"},
		{"hf.co/org/Model-GGUF:Q8_0", 1024, "hf.co/org/model-gguf:q8_0/1024"},
	}
	for _, tt := range tests {
		s := SpaceOf(tt.model, tt.dims)
		if got := s.String(); got != tt.want {
			t.Errorf("SpaceOf(%q, %d) = %s, want %s", tt.model, tt.dims, got, tt.want)
		}
		back, err := ParseSpace(s.String())
		if err != nil || back != s {
			t.Errorf("ParseSpace(%q) = %v, %v; want %v", s.String(), back, err, s)
		}
	}
	for _, bad := range []string{"", "model", "/768", " /1", ":latest/1", "model/", "model/0", "model/x"} {
		if s, err := ParseSpace(bad); err == nil {
			t.Errorf("ParseSpace(%q) = %v, want an error", bad, s)
		}
	}
}

func TestModelFamilyAndPrefixes(t *testing.T) {
	tests := []struct {
		model, doc, query string
	}{
		{"nomic-embed-text", "search_document: ", "search_query: "},
		{"NOMIC-EMBED-TEXT:v1.5", "search_document: ", "search_query: "},
		{"registry.ollama.ai/library/nomic-embed-text:latest", "search_document: ", "search_query: "},
		{"mxbai-embed-large:335m", "", "Represent this sentence for searching relevant passages: "},
		{"snowflake-arctic-embed:22m", "", "Represent this sentence for searching relevant passages: "},
		{"embeddinggemma", "title: none | text: ", "task: search result | query: "},
		{"all-minilm", "", ""},
		{"glove-100d", "", ""},
		{"nomic-embed-text-v2-moe", "", ""}, // a family of its own: not guessed
		{"nomic-ai/nomic-embed-text-v1.5", "search_document: ", "search_query: "},
		{"text-embedding-nomic-embed-text-v1.5", "search_document: ", "search_query: "},
		{"intfloat/e5-large-v2", "passage: ", "query: "},
		{"intfloat/multilingual-e5-small", "passage: ", "query: "},
		{"intfloat/multilingual-e5-large-instruct", "", ""}, // instructions, not prefixes
		{"text-embedding-3-small", "", ""},
		{"bge-small-en-v1.5", "", "Represent this sentence for searching relevant passages: "},
		{"BAAI/bge-base-en-v1.5", "", "Represent this sentence for searching relevant passages: "},
		{"bge-large:335m", "", "Represent this sentence for searching relevant passages: "},
		{"e5-small-v2", "passage: ", "query: "},
		{"bge-m3", "", ""}, // no instruction
	}
	for _, tt := range tests {
		doc, query := PrefixesFor(tt.model)
		if doc != tt.doc || query != tt.query {
			t.Errorf("PrefixesFor(%q) = %q, %q; want %q, %q", tt.model, doc, query, tt.doc, tt.query)
		}
	}
}

func TestCheckModelName(t *testing.T) {
	for _, ok := range []string{"nomic-embed-text", "NOMIC-EMBED-TEXT", "mxbai-embed-large:335m", "hf.co/org/model-GGUF:Q4_K_M", "user/model_x.v2"} {
		if r := checkModelName(ok); r != "" {
			t.Errorf("checkModelName(%q) = %q, want accepted", ok, r)
		}
	}
	tests := map[string]string{
		"a b":           `invalid model name "a b"`,
		"":              `invalid model name ""`,
		"model:":        `invalid model name "model:"`,
		"-model":        `invalid model name "-model"`,
		"mo/del/x/y":    `invalid model name "mo/del/x/y"`,
		"model:t@g":     `invalid model name "model:t@g"`,
		"naïve-embed":   `invalid model name "naïve-embed"`,
		"my.org/m:тег":  `invalid model name "my.org/m:тег"`,
		"model\n":       `invalid model name "model\n"`,
		"ns.with.dot/m": `invalid model name "ns.with.dot/m"`,
	}
	for name, want := range tests {
		if got := checkModelName(name); got != want {
			t.Errorf("checkModelName(%q) = %q, want %q", name, got, want)
		}
	}
}

// A document prefix other than the model's convention is part of the
// space; the query prefix and the provider are not.
func TestSpaceFor(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"defaults", Config{}, "nomic-embed-text/768"},
		{"the known prefix, said", Config{Model: "nomic-embed-text", Dims: 768, DocumentPrefix: str("search_document: ")}, "nomic-embed-text/768"},
		{"query prefix only", Config{Model: "nomic-embed-text", Dims: 768, QueryPrefix: str("")}, "nomic-embed-text/768"},
		{"other provider", Config{Provider: ProviderOpenAI, Model: "Nomic-Embed-Text", Dims: 768}, "nomic-embed-text/768"},
		{"no prefix", Config{Model: "nomic-embed-text", Dims: 768, DocumentPrefix: str("")}, "nomic-embed-text#e3b0c442/768"},
		{"another prefix", Config{Model: "glove-100d", Dims: 100, DocumentPrefix: str("passage: ")}, "glove-100d#707ad539/100"},
	}
	for _, tt := range tests {
		got := SpaceFor(tt.cfg).String()
		if got != tt.want {
			t.Errorf("%s: SpaceFor = %q, want %q", tt.name, got, tt.want)
		}
		if sp, err := ParseSpace(got); err != nil || sp.String() != got {
			t.Errorf("%s: ParseSpace(%q) = %v, %v", tt.name, got, sp, err)
		}
	}
}
