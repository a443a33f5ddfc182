package knowledge

import (
	"strings"
	"sync"
	"time"
)

// chunkIndex is the in-memory index search_knowledge and container_stats
// read: every knowledge document's state (container, path, upload job,
// status, size) and the chunks, keyword streams and vectors of the Ready
// ones. It is derived from the store: the follower (follow.go) applies
// every committed change to it, from any process or replica, and it is
// restored from its snapshot or rebuilt from SQL at Open. Nothing but
// Apply and the start-up load writes it.
type chunkIndex struct {
	mu    sync.RWMutex
	docs  map[string]*docIndex // by document id
	paths map[string]string    // container+"\x00"+path -> document id
	vocab *vocab               // the chunks' term ids (terms.go)
	// wm is the change-log seq the index holds every change up to (set
	// with each applied batch, under mu, so a snapshot taken under mu is
	// exactly the state at wm). changed counts documents applied since
	// the last snapshot.
	wm      int64
	changed int
	// legacy counts the documents whose id is not derived from their
	// path (uploaded by an earlier version): only those need the index
	// to find a document by path.
	legacy int
}

// docIndex is one document in the index.
type docIndex struct {
	container, path string
	gen             int
	job             string // the upload's job id: a new upload has a new one
	size            int64
	status          string
	hash            string // hashText of the entry text the chunks were built from
	chunks          []indexedChunk
	totalLen        int // sum of the chunks' token counts
	indexedAt       time.Time
	model           string
	dims            int
}

type indexedChunk struct {
	Chunk
	terms termCounts // the exact stream's term counts (the English stream's are derived: terms.go)
	n     int        // tokens
	vec   []float32
}

func newChunkIndex() *chunkIndex {
	return &chunkIndex{docs: map[string]*docIndex{}, paths: map[string]string{}, vocab: newVocab()}
}

func pathKey(container, p string) string { return container + "\x00" + p }

// indexChunks computes the keyword streams of chunks, with their vectors
// when vecs has one per chunk; total is the sum of their token counts.
// The index keeps copies of the chunks' texts: a chunk the chunker or
// chunksOf cut out of its document without a heading is a substring of
// the whole text read from SQL, and kept it resident, 1 MB a document
// beside its chunks (10 x 1 MB of Markdown: 9.0 MB of document texts
// held by the index, in a heap profile after the ingestion).
func (x *chunkIndex) indexChunks(chunks []Chunk, vecs [][]float32) (out []indexedChunk, total int) {
	out = make([]indexedChunk, len(chunks))
	var buf []byte
	for i, c := range chunks {
		c.Text = strings.Clone(c.Text)
		out[i], buf = x.vocab.indexChunk(c, buf)
		if len(vecs) == len(chunks) {
			out[i].vec = vecs[i]
		}
		total += out[i].n
	}
	return out, total
}

// keepChunks reports whether id's indexed chunks were built from the
// text with hash for upload job, so a change that left both alone (a
// grant, a status the chunks do not depend on) need not rebuild them.
func (x *chunkIndex) keepChunks(id, job, hash string) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	d := x.docs[id]
	return d != nil && d.status == Ready && d.job == job && d.hash == hash
}

// put replaces document id's state. With keep, d's chunks are the ones
// already indexed (see keepChunks).
func (x *chunkIndex) put(id string, d *docIndex, keep bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	old := x.docs[id]
	if keep && old != nil {
		d.chunks, d.totalLen = old.chunks, old.totalLen
	}
	if old != nil && x.paths[pathKey(old.container, old.path)] == id {
		delete(x.paths, pathKey(old.container, old.path))
	}
	if old == nil && !isDocID(id) {
		x.legacy++
	}
	x.docs[id] = d
	x.paths[pathKey(d.container, d.path)] = id
	x.changed++
}

// forget removes document id, if indexed.
func (x *chunkIndex) forget(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if d := x.docs[id]; d != nil {
		if x.paths[pathKey(d.container, d.path)] == id {
			delete(x.paths, pathKey(d.container, d.path))
		}
		delete(x.docs, id)
		if !isDocID(id) {
			x.legacy--
		}
		x.changed++
	}
}

// hasLegacy reports whether a document uploaded before ids were derived
// from paths is indexed.
func (x *chunkIndex) hasLegacy() bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.legacy > 0
}

// has reports whether id is an indexed document.
func (x *chunkIndex) has(id string) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.docs[id] != nil
}

// setWatermark records that the index holds every change up to seq.
func (x *chunkIndex) setWatermark(seq int64) {
	x.mu.Lock()
	x.wm = seq
	x.mu.Unlock()
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

// unfinished lists the documents still Pending or Processing, with their
// upload's job: work a process (perhaps killed) left undone.
func (x *chunkIndex) unfinished() []job {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []job
	for id, d := range x.docs {
		if d.status == Pending || d.status == Processing {
			out = append(out, job{doc: id, gen: d.gen, id: d.job})
		}
	}
	return out
}
