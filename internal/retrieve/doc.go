// Package retrieve owns the ranked searches of the engine from a
// validated request to its hydrated page: it runs the search legs of
// package search (full text, vectors, or both concurrently for hybrid
// search), fuses and reranks their candidates through package rank, cuts
// the page from the one ordering of at most rank.Depth entries, reads the
// page's entries, and reports the scores, the warnings of a failed leg and
// the explain statistics. It also runs grep_context's capped scan, and
// OpenSemantic opens the vector leg with the embedding configuration's
// checks and keeps why semantic search cannot run.
//
//	s := retrieve.Searcher{Store: st, FTS: ft, Vectors: vs, Embed: gen.EmbedQuery}
//	a, err := s.Hybrid(ctx, acc, retrieve.HybridQuery{Text: "connection refused", Filter: f, Window: w, Config: hc, Modes: modes})
//
// The facade (package contextd) checks the caller and validates the
// request with package request before it calls here, and renders the
// entries of the answer as the caller sees them; this package returns
// stored entries with their scores and never shapes the public types.
// It sits below the facade and above the legs: it imports search, rank,
// request, persist and the leaves below them, and nothing imports it but
// the facade.
package retrieve
