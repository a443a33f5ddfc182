// Package knowledge owns the knowledge containers and documents behind
// the eleven knowledge tools: containers (create, list, resolve by id or
// name, delete when empty, statistics), documents at virtual paths
// (upload with the path and file-name rules, re-upload in place,
// listing, full text, delete), background ingestion (parse with
// index/extract, chunk, embed; statuses Pending, Processing, Ready,
// Failed kept in the store) and search over a container's chunks
// (Semantic, Keyword, Hybrid).
//
// Containers and documents are ordinary entries (thread "knowledge" and
// "knowledge/<container id>", the record under metadata "knowledge"), so
// they obey the access model of every other entry: a principal sees a
// container it may read and, inside it, only the documents it may read;
// counts, listings, statistics and search scores are computed over those
// alone. Every write to them goes through the store with its change-log
// row, like any entry's.
//
// The chunk index (keyword streams and vectors of every Ready document)
// is derived from the store like the engine's other indexes: it follows
// the change log through internal/follow, so an upload, a delete, an
// ingestion or an update_context edit made by any process or replica on
// the database reaches it; every read catches up first, so listings,
// statistics and search answer one committed state; it is saved beside
// the database (Options.SnapshotPath) and restored at Open, or rebuilt
// from SQL when the snapshot is missing, damaged or of another database.
// Documents another process left Pending or Processing are ingested
// again at Open, or by a running process once they made no progress for
// Options.AdoptAfter.
//
//	svc, err := knowledge.Open(ctx, st, feed, embedder, knowledge.Options{SnapshotPath: dbPath + ".knowledge"})
//	defer svc.Close()
//	acc := persist.Access{Principal: "local"}
//	c, err := svc.Create(ctx, acc, nil, "project-docs", "Project documentation")
//	up, err := svc.Upload(ctx, acc, c, knowledge.File{Name: "readme.md", Data: []byte("# Hello")})
//	res, err := svc.Search(ctx, acc, c, knowledge.Query{Text: "hello", TopK: 10})
//
// The root package (contextd.Engine) opens the service on its own store
// and feed and exposes it through typed methods.
package knowledge
