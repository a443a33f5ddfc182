// Package knowledge owns the knowledge containers and documents behind
// the eleven knowledge tools: containers (create, list, resolve by id or
// name, delete when empty, statistics), documents at virtual paths
// (upload with the path and file-name rules, re-upload in place,
// listing, full text, delete), background ingestion (parse with
// index/extract, chunk, embed; statuses Pending, Processing, Ready,
// Failed kept in the store and resumed at Open) and search over a
// container's chunks (Semantic, Keyword, Hybrid with convex-combination
// fusion).
//
// Containers and documents are ordinary entries (thread "knowledge" and
// "knowledge/<container id>", the record under metadata "knowledge"), so
// they obey the access model of every other entry: a principal sees a
// container it may read and, inside it, only the documents it may read;
// counts, listings, statistics and search scores are computed over those
// alone. The chunk index is in memory, derived from the stored text.
//
//	svc, err := knowledge.Open(ctx, eng.Persist(), embedder, knowledge.Options{})
//	defer svc.Close()
//	acc := persist.Access{Principal: "local"}
//	c, err := svc.Create(ctx, acc, nil, "project-docs", "Project documentation")
//	up, err := svc.Upload(ctx, acc, c, knowledge.File{Name: "readme.md", Data: []byte("# Hello")})
//	res, err := svc.Search(ctx, acc, c, knowledge.Query{Text: "hello", TopK: 10})
package knowledge
