package config

import (
	"strconv"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/model/local"
	"github.com/contextd/contextd/model/model2vec"
)

// The local provider runs a model from a folder on disk in-process
// (model/local): no server, no network. The folder is read and checked
// at start-up, so a missing file, a damaged one or an architecture this
// build cannot run is a configuration error naming the file and the fix
// (exit 78) rather than a failure at the first write.

var (
	_ contextd.Embedder = (*local.Embedder)(nil)
	_ contextd.Embedder = (*model2vec.Embedder)(nil)
	_ contextd.Reranker = (*local.CrossEncoder)(nil)
)

const localFolderHint = "a sentence-transformers model folder (config.json, model.safetensors, tokenizer.json or vocab.txt, modules.json); see docs/local-models.md"

// readLocalEmbedder loads EMBEDDING_MODEL_PATH (EMBEDDING_PROVIDER=local)
// and returns the embedder and its dimension. The dimension is the
// model's: EMBEDDING_DIM, when set, must agree with it.
func readLocalEmbedder(r *envReader, name string, dim int, dimSet bool) (contextd.Embedder, int) {
	path := r.text("EMBEDDING_MODEL_PATH")
	if path == "" {
		r.fail("EMBEDDING_MODEL_PATH", "", "must name "+localFolderHint+" when EMBEDDING_PROVIDER=local")
		return nil, dim
	}
	var em contextd.Embedder
	var err error
	width := "hidden_size of its config.json"
	if model2vec.IsModel2Vec(path) {
		// A static model (Model2Vec's config.json, or a
		// sentence-transformers StaticEmbedding pipeline): one
		// embedding table and a tokenizer, no prompts.
		em, err = model2vec.Load(path, model2vec.Options{Name: name})
		width = "the width of its embeddings table"
	} else {
		opt := local.Options{Name: name}
		if v, ok := r.lookup("EMBEDDING_QUERY_PREFIX"); ok {
			opt.QueryPrefix = &v
		}
		if v, ok := r.lookup("EMBEDDING_PASSAGE_PREFIX"); ok {
			opt.PassagePrefix = &v
		}
		em, err = local.Load(path, opt)
	}
	if err != nil {
		r.fail("EMBEDDING_MODEL_PATH", path, err.Error())
		return nil, dim
	}
	if dimSet && dim != em.Dim() {
		v, _ := r.lookup("EMBEDDING_DIM")
		r.fail("EMBEDDING_DIM", v, "the model in EMBEDDING_MODEL_PATH has "+strconv.Itoa(em.Dim())+" dimensions ("+width+"); unset EMBEDDING_DIM or set it to "+strconv.Itoa(em.Dim()))
	}
	return em, em.Dim()
}

// readLocalReranker loads RERANKING_MODEL_PATH (RERANKING_PROVIDER=local).
func readLocalReranker(r *envReader) contextd.Reranker {
	path := r.text("RERANKING_MODEL_PATH")
	if path == "" {
		r.fail("RERANKING_MODEL_PATH", "", "must name a cross-encoder folder (config.json with a ...ForSequenceClassification architecture, model.safetensors, tokenizer.json or vocab.txt) when RERANKING_PROVIDER=local; see docs/local-models.md")
		return nil
	}
	ce, err := local.LoadCrossEncoder(path)
	if err != nil {
		r.fail("RERANKING_MODEL_PATH", path, err.Error())
		return nil
	}
	return ce
}
