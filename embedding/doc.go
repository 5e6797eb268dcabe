// Package embedding turns text into vectors through a [Provider], Ollama's
// own API (POST /api/embed) or any server of the OpenAI embeddings API (POST
// /v1/embeddings), and degrades honestly when it cannot.
//
// A [Service] never returns an error for the provider's state: when Ollama is
// down, the model is not pulled, a request times out or the answer is not
// usable, the caller gets Available=false, a Reason a person can act on (for
// example "model nomic-embed-text not pulled: run `ollama pull
// nomic-embed-text`") and a nil vector for each text that could not be
// embedded. Indexing then stores chunks without vectors and search falls back
// to lexical ranking, instead of the daemon failing.
//
// Every vector belongs to an embedding [Space] (model and dimensions); callers
// record Space().String() with each stored vector, because vectors of two
// spaces cannot be compared.
//
// Vectors returned as usable always have exactly Space().Dims finite float32
// values and unit L2 norm.
//
// The package does not read the process environment except in
// [HostFromEnv], which the caller uses to fill Config.Host, and for the
// variable Config.APIKeyEnv names.
package embedding
