// Package generate owns the model artifacts of an entry: the flat summary,
// the index-tree node summaries and the chunk vectors, produced before the
// write transaction that stores them (R-015, C.11), and the re-embedding
// migration after a change of embedding model. It bounds the concurrent
// calls of each model (SUMMARY_MAX_CONCURRENT, EMBEDDING_MAX_CONCURRENT),
// builds the generation parts of the store and update messages, and checks
// that the configured embedding model matches the stored vectors.
//
// The engine builds one Generator from its configuration and runs it
// before each write:
//
//	g := generate.New(generate.Options{
//		Summary:   generate.SummaryOptions{Summarizer: sum},
//		Embedding: generate.EmbeddingOptions{Embedder: emb},
//	})
//	res, err := g.Generate(ctx, generate.Job{Text: text, Source: "user"})
//	if err != nil { ... } // nothing is stored
//	err = st.Write(ctx, func(tx persist.Tx) error {
//		// insert the entry with res.Summary, then:
//		if err := res.WriteEmbeddings(ctx, tx, id, false); err != nil {
//			return err
//		}
//		return res.WriteNodes(ctx, tx, id)
//	})
//	msg := "Context stored" + generate.StoreParts(res, false, true)
//
// It depends on persist and the index packages only, never on the root
// package; the model interfaces it consumes are defined here.
package generate
