// Package eval measures ragd's retrieval quality on judged queries and
// calibrates the fusion from them: `ragd eval` and `ragd calibrate`.
//
// Judged queries come from a golden set (JSON lines naming the files,
// sections, sessions or messages a query should find: ParseGolden, checked
// against the project with a ProjectResolver), from a BEIR folder (LoadBEIR;
// its corpus is indexed into a project of its own through the real
// pipeline by OpenBEIRIndex), or from the votes recorded in telemetry
// (TelemetrySet). A citation that names nothing that exists (a file not at
// HEAD, an unknown session or message, a document not in the corpus) is
// unresolvable: counted apart, never relevant, never dropped silently.
//
// Each query's candidates are retrieved once (Retrieve), at the deepest
// depth any replay reads and with both signals scored for every candidate
// (search.Searcher.Candidates); every mode (Evaluate) and every setting of
// the calibration grid (Calibrate) is then a replay of them in memory
// through search.Fuse, ordered as Search orders its hits. Nothing is
// recorded in telemetry, so evaluation never counts in `ragd measure`.
// Queries are embedded beforehand, in batches (EmbedQueries).
//
// # Metrics
//
// A ranking of chunks is first turned into a ranking of units, the things
// judgments name: a BEIR document, a file section or session message of a
// golden set, a chunk of a vote. A unit counts once, at the rank of its
// first chunk; later chunks of the same unit are dropped before any metric
// is computed, and so is a chunk matching only citations already credited.
// A unit credits at most one citation (the best-graded one not yet
// credited) and gains that citation's grade.
//
//   - nDCG@k: DCG = Σ gain_i / log2(i+1) over ranks i ≤ k, with linear gain
//     (gain = grade, as trec_eval and BEIR compute it; with 0/1 grades it
//     equals 2^grade − 1), divided by the DCG of the ideal ranking of all
//     the query's relevant citations.
//   - recall@k: relevant citations credited in the first k units, over all
//     relevant citations of the query.
//   - MRR@k: 1/rank of the first relevant unit within k, else 0.
//
// A query with no relevant citation (none given, or all unresolvable) has
// no defined nDCG or recall: it is excluded from every mean and counted
// apart. Ranks are strict: ragd breaks score ties deterministically
// (source path, position, chunk id), and the metrics read that order.
//
// Differences between modes are paired over queries, with a percentile
// bootstrap interval (PairedBootstrap: 2000 resamples, fixed seed, 95% by
// default); a difference whose interval holds 0 is reported as no measured
// difference.
package eval
