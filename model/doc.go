// Package model runs a small sentence-embedding model inside the ragd
// process: the built-in provider's engine (see docs/adr for the runtime
// chosen and why). It reads a BERT checkpoint in the safetensors format and
// its Hugging Face tokenizer.json, tokenizes with BERT's WordPiece, runs the
// encoder's forward pass and pools the token states into one unit vector
// per text, as sentence-transformers does (mean pooling, normalized).
//
// The forward pass's matrix products, attention and GELU run on a C kernel
// of its own (kernel_amd64.c: AVX2 and FMA, AVX-512 for the products where
// the CPU has it), chosen at load time by the CPU's features; elsewhere
// (other CPUs, no cgo) on portable Go and gonum's Sgemm. Model.Kernel says
// which.
//
// It also installs the weights: Install copies or downloads the files of a
// pinned Spec into the user's cache, verifying each file's size and SHA-256,
// so a cut or tampered download is refused and never loaded.
//
// It imports no other package of the project.
package model
