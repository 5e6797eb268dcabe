package embedding

// Some embedding models were trained with a task instruction before the
// text, and retrieve noticeably worse without it. Ollama does not add it, so
// the client must.
const (
	// nomicDocumentPrefix and nomicQueryPrefix are nomic-embed-text's task
	// prefixes (model card: "search_document" / "search_query").
	nomicDocumentPrefix = "search_document: "
	nomicQueryPrefix    = "search_query: "
	// retrievalQueryInstruction is the query instruction of the BGE English
	// models (bge-small/base/large-en v1 and v1.5, model card: "Represent
	// this sentence for searching relevant passages: " for short queries
	// retrieving passages) and of those trained in their style
	// (mxbai-embed-large, snowflake-arctic-embed v1); their documents take
	// no prefix.
	retrievalQueryInstruction = "Represent this sentence for searching relevant passages: "
	// e5QueryPrefix and e5DocumentPrefix are the E5 models' (model card:
	// "query: " / "passage: "; without them quality drops).
	e5QueryPrefix    = "query: "
	e5DocumentPrefix = "passage: "
)

// taskPrefixes is a model family's prompt convention.
type taskPrefixes struct {
	document, query string
}

// knownPrefixes returns the table of prompt conventions, keyed by model
// family (see modelFamily). It is a function, not a package variable, so that
// nothing can modify it.
func knownPrefixes() map[string]taskPrefixes {
	nomic := taskPrefixes{document: nomicDocumentPrefix, query: nomicQueryPrefix}
	e5 := taskPrefixes{document: e5DocumentPrefix, query: e5QueryPrefix}
	return map[string]taskPrefixes{
		"nomic-embed-text": nomic,
		// The same weights under the names of the OpenAI-compatible
		// servers: Hugging Face's (vLLM, text-embeddings-inference,
		// llama.cpp's GGUF) and LM Studio's.
		"nomic-embed-text-v1":                  nomic,
		"nomic-embed-text-v1.5":                nomic,
		"text-embedding-nomic-embed-text-v1":   nomic,
		"text-embedding-nomic-embed-text-v1.5": nomic,
		"e5-small":                             e5,
		"e5-base":                              e5,
		"e5-large":                             e5,
		"e5-small-v2":                          e5,
		"e5-base-v2":                           e5,
		"e5-large-v2":                          e5,
		"multilingual-e5-small":                e5,
		"multilingual-e5-base":                 e5,
		"multilingual-e5-large":                e5,
		"mxbai-embed-large":                    {query: retrievalQueryInstruction},
		// BGE English, under Hugging Face's names and Ollama's ("bge-large"
		// is bge-large-en-v1.5 there). bge-m3 takes no instruction.
		"bge-small-en":           {query: retrievalQueryInstruction},
		"bge-base-en":            {query: retrievalQueryInstruction},
		"bge-large-en":           {query: retrievalQueryInstruction},
		"bge-small-en-v1.5":      {query: retrievalQueryInstruction},
		"bge-base-en-v1.5":       {query: retrievalQueryInstruction},
		"bge-large-en-v1.5":      {query: retrievalQueryInstruction},
		"bge-small":              {query: retrievalQueryInstruction},
		"bge-base":               {query: retrievalQueryInstruction},
		"bge-large":              {query: retrievalQueryInstruction},
		"snowflake-arctic-embed": {query: retrievalQueryInstruction},
		// EmbeddingGemma's model card prompts for retrieval.
		"embeddinggemma": {document: "title: none | text: ", query: "task: search result | query: "},
	}
}

// PrefixesFor returns the document and query prefixes known for a model, by
// family: case-insensitive, ignoring a ":tag" and a registry or namespace
// ("NOMIC-EMBED-TEXT:v1.5" is nomic-embed-text). Unknown models get none;
// Config.DocumentPrefix and Config.QueryPrefix override the table.
func PrefixesFor(model string) (document, query string) {
	p := knownPrefixes()[modelFamily(model)]
	return p.document, p.query
}
