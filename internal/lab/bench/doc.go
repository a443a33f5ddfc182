// Package bench owns `contextd bench`: it builds a fresh database from a
// real corpus, drives the engine through mcp-go's in-process MCP client as
// a client would (JSON encoding of every request and response included),
// and measures store throughput, the latency of every search tool with
// its filters, start-up time with and without the in-process index
// snapshots, and memory (RSS, Go heap, and the Go heap by component from
// a heap profile), for each search backend side by side.
//
//	rep, err := bench.Run(ctx, bench.Options{Size: 10_000, DataDir: "testdata"})
//	if err == nil {
//		rep.Markdown(os.Stdout) // or rep.JSON(os.Stdout)
//	}
//
// The corpus is Cranfield (title and abstract of 1,400 documents) when
// the size fits in it and the collection is present, and otherwise the
// doc-comment paragraphs of the Go source tree ($GOROOT/src: about 107k
// paragraphs of at least six words, 81k of them distinct, 125 bytes on
// average), in walk order, so the first N entries are the same texts at
// every size. Above the paragraphs (the acceptance targets are measured
// at 1M entries), entries are composed from the tree's own sentences and
// the corpus is named "go-doc-comments+composed": entry i is 2 to 5
// distinct sentences drawn by a PCG seeded with a constant and i, from
// within 32 sentences of each other in walk order (one file or package),
// about 320 bytes on average, so words and term frequencies are the
// tree's and only the combinations are new (compose.go). Composed texts
// are made on demand while storing and never held; the real paragraphs
// and the sentence pool (about 19 MiB of heap) are dropped once stored,
// before memory is measured. Sizes stop at MaxSize (10M). Every entry
// gets the structure the filters need: eight threads, a source, two tags,
// metadata.status (indexed by default) alternating active/done with a
// rare "blocked" every 1,000th entry, and non-indexed fields priority
// (0-9) and seq (unique), so each filter is measured at a common and a
// rare selectivity.
//
// RunLoad is `contextd bench --load`: the same configuration served over
// streamable HTTP on a loopback port with JWT authentication, a database
// of Size entries stored first by a principal no client is, and
// internal/loadtest's N concurrent clients against it.
//
//	rep, err := bench.RunLoad(ctx, bench.LoadOptions{Clients: 16, Duration: time.Minute, Size: 10_000})
//	if err == nil && rep.Failed() == "" {
//		rep.Markdown(os.Stdout)
//	}
package bench
