// Package index owns contextd's in-process full-text index: a Bleve
// (scorch) index scored with BM25 over entry text, with one analyzer per
// FTS_LANGUAGE (the words of SQLite FTS5's unicode61 tokenizer, package
// index/token, then snowball stemmers; analyzer.go), the query-side stop
// word rule both backends share (query_text.go), query
// building for the four modes of fts_search_context (match, prefix,
// phrase, boolean), the allowed-set prefilter (the roaring bitmaps of
// index/catalog mapped onto Bleve's document numbers, so hidden or
// filtered entries never take a slot; prefilter.go), BM25 term pruning
// (prune.go), statistics and candidate selection over the caller's
// readable set (stats.go, exact.go), highlights,
// and the on-disk snapshot beside the database (format header, change-log
// watermark, checksum).
//
// The index is a cache: internal/search feeds it from the SQL change log
// (through internal/follow) and rebuilds it from SQL when it is missing,
// stale or corrupt.
//
//	ix, err := index.Open(index.Options{Dir: dbPath + ".index", Language: "english"})
//	err = ix.Apply(ctx, []index.Doc{{ID: id, Text: "connection refused", Owner: "alice"}}, nil, seq)
//	res, err := ix.Search(ctx, index.Query{Text: "connection", Mode: "match",
//		Access: index.Access{Principal: "alice"}, Size: 100})
//
// Entries are indexed whole: their chunks are embedded for the vector leg
// (internal/search and package vector), not indexed here.
package index
