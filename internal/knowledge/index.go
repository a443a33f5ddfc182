package knowledge

import (
	"sync"
	"time"
)

// chunkIndex is the in-memory index search_knowledge reads: every
// document's registration (container, path, generation, status) and the
// chunks, term frequencies and vectors of the Ready ones. It is derived
// from the store and rebuilt at Open.
type chunkIndex struct {
	mu    sync.RWMutex
	docs  map[string]*docIndex // by document id
	paths map[string]string    // container+"\x00"+path -> document id
	vocab *vocab               // the chunks' term ids (terms.go)
}

// docIndex is one document in the index.
type docIndex struct {
	container, path string
	gen             int
	size            int64
	status          string
	chunks          []indexedChunk
	totalLen        int // sum of the chunks' token counts
	indexedAt       time.Time
	model           string
	dims            int
}

type indexedChunk struct {
	Chunk
	terms termCounts // the exact stream's term counts
	stems termCounts // the English stream's (keyword.go)
	n     int        // tokens
	vec   []float32
}

func newChunkIndex() *chunkIndex {
	return &chunkIndex{docs: map[string]*docIndex{}, paths: map[string]string{}, vocab: newVocab()}
}

func pathKey(container, p string) string { return container + "\x00" + p }

// register records a document at generation gen, Pending: a re-upload
// drops the previous chunks at once, so search never returns text the
// document no longer has.
func (x *chunkIndex) register(id, container, p string, gen int, size int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	d := x.docs[id]
	if d != nil && d.gen > gen {
		return
	}
	x.docs[id] = &docIndex{container: container, path: p, gen: gen, size: size, status: Pending}
	x.paths[pathKey(container, p)] = id
}

// put stores the outcome of ingesting generation gen, unless a newer
// upload has been registered since.
func (x *chunkIndex) put(id string, gen int, status string, chunks []Chunk, vecs [][]float32, at time.Time, model string, dims int) {
	ic := make([]indexedChunk, len(chunks))
	total := 0
	var buf []byte
	for i, c := range chunks {
		ic[i], buf = x.vocab.indexChunk(c, buf)
		if i < len(vecs) {
			ic[i].vec = vecs[i]
		}
		total += ic[i].n
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	d := x.docs[id]
	if d == nil || d.gen != gen {
		return
	}
	d.status, d.chunks, d.totalLen, d.indexedAt, d.model, d.dims = status, ic, total, at, model, dims
}

// forget removes a deleted document.
func (x *chunkIndex) forget(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if d := x.docs[id]; d != nil {
		if x.paths[pathKey(d.container, d.path)] == id {
			delete(x.paths, pathKey(d.container, d.path))
		}
		delete(x.docs, id)
	}
}

func (x *chunkIndex) byPath(container, p string) (string, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	id, ok := x.paths[pathKey(container, p)]
	return id, ok
}

// docCount counts every document of a container, whoever may read it.
func (x *chunkIndex) docCount(container string) int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := 0
	for _, d := range x.docs {
		if d.container == container {
			n++
		}
	}
	return n
}
