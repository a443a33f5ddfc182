// Package contextd is the engine of contextd: a persistent, searchable
// memory for AI agents. It is the one public API and only a facade: Open,
// Engine and its methods, and Config. The request, response and value
// types of the tools are defined, with their fields and JSON shapes, in
// package [github.com/contextd/contextd/api]; this package names each of
// them too (StoreRequest is api.StoreRequest), so either import serves.
// The MCP server (package server) is a thin transport over it, and
// desktop agents embed it directly.
//
//	import _ "github.com/contextd/contextd/persist/sqlite" // the default backend
//
//	eng, err := contextd.Open(ctx, contextd.Config{DBPath: "/tmp/ctx.db"})
//	if err != nil { ... }
//	defer eng.Close()
//	ctx = contextd.WithPrincipal(ctx, contextd.Principal{ID: "local"})
//	res, err := eng.Store(ctx, contextd.StoreRequest{ThreadID: "t", Source: "user", Text: "hello"})
//
// SQL holds the truth behind the storage contract of package persist; the
// engine opens a store by backend name (Config.Storage) or takes one
// (Config.Store) and imports no backend itself. Each request flows down
// once: internal/request validates it into typed values with the reference
// error texts, the search legs (internal/search: in-process indexes that
// follow the change log through internal/follow, or the database's own
// engines) run inside the caller's allowed set, internal/rank fuses and
// reranks, internal/retrieve runs a ranked search from the validated
// request to the hydrated page, internal/generate produces embeddings and
// summaries before a write, and the answer comes back in package api's
// types.
package contextd
