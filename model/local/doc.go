// Package local owns the transformer models contextd runs in-process from
// a folder on disk, with no server, no network and no cgo: BERT-family
// sentence encoders (EMBEDDING_PROVIDER=local) and cross-encoders
// (RERANKING_PROVIDER=local).
//
// A folder is laid out as sentence-transformers saves it: config.json
// (model_type "bert"), model.safetensors (read by model/safetensors),
// tokenizer.json or vocab.txt (model/wordpiece), and the pipeline of
// modules.json with 1_Pooling/config.json (CLS, mean, max or
// mean-sqrt-len pooling, optional Normalize), sentence_bert_config.json's
// token limit and config_sentence_transformers.json's query/passage
// prompts. Load refuses what it cannot run with a *FolderError naming the
// file and the fix.
//
// The encoder stacks the tokens of a batch's texts without padding: the
// linear maps (one fused product for query, key and value) run over all
// tokens at once and attention within each text, which equals a padded
// batch with its attention mask. The products, 97 % of the work, run on
// an AVX2/FMA kernel on amd64 (matmul_amd64.s; a portable loop elsewhere)
// in cache-sized tiles spread over GOMAXPROCS goroutines; attention
// spreads its (text, head) pairs the same way. testdata/gen_fixtures.py
// writes tiny random models and the outputs of a torch forward pass the
// tests compare with (within 1e-4).
//
//	em, err := local.Load("/models/all-MiniLM-L6-v2", local.Options{})
//	vecs, err := em.Embed(ctx, []string{"car engine failure in winter"})
//	q, err := em.EmbedQuery(ctx, "why does the engine fail")
//	ce, err := local.LoadCrossEncoder("/models/ms-marco-MiniLM-L-6-v2")
//	scores, err := ce.Rerank(ctx, "engine failure", passages)
package local
