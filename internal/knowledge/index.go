package knowledge

import (
	"math"
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

// indexedChunk is one chunk in the index. Its text is not kept when it
// is a span of its document's entry text (every chunk index/kchunk
// cuts, with or without a Markdown breadcrumb): str
// is then the breadcrumb alone and the text is read from the store for
// the chunks a search returns or a phrase must be checked in (text.go).
// The texts were the largest part of the index: 104 MB of the 320 MB of
// Go heap 30 s after a bulk upload of 100 x 1 MB of Markdown (#28).
// A chunk that is no span (its text not text[Start:End] behind an
// optional breadcrumb) keeps a copy of its text in str.
type indexedChunk struct {
	str        string // the text, or for a span its breadcrumb ("" for none)
	start, end int32  // byte offsets into the document text
	span       bool
	n          int32      // tokens
	terms      termCounts // the exact stream's term counts (the English stream's are derived: terms.go)
	vec        []int16    // the vector's codes (veccode.go), nil for none
}

func newChunkIndex() *chunkIndex {
	return &chunkIndex{docs: map[string]*docIndex{}, paths: map[string]string{}, vocab: newVocab()}
}

func pathKey(container, p string) string { return container + "\x00" + p }

// indexChunks computes the keyword streams of chunks, cut from text (the
// document entry's text), with their vectors' codes when vecs has one
// per chunk (indexCoded).
func (x *chunkIndex) indexChunks(text string, chunks []Chunk, vecs [][]float32) (out []indexedChunk, total int) {
	var codes [][]int16
	if len(vecs) == len(chunks) {
		codes = encodeVecs(vecs)
	}
	return x.indexCoded(text, chunks, codes)
}

// indexCoded computes the keyword streams of chunks, cut from text (the
// document entry's text), with codes as their vectors when it has one
// per chunk; total is the sum of their token counts. A chunk that is a span
// of text keeps only its offsets and breadcrumb; any other keeps a copy
// of its text. Neither keeps a slice of text: a chunk the chunker or
// chunksOf cut out of its document is a substring of the whole text read
// from SQL, and kept it resident, 1 MB a document beside its chunks
// (10 x 1 MB of Markdown: 9.0 MB of document texts held by the index, in
// a heap profile after the ingestion). A breadcrumb repeated by a
// document's chunks is one copy.
func (x *chunkIndex) indexCoded(text string, chunks []Chunk, codes [][]int16) (out []indexedChunk, total int) {
	out = make([]indexedChunk, len(chunks))
	heads := map[string]string{}
	var sc chunkScratch
	for i, c := range chunks {
		out[i] = x.vocab.indexChunk(c, &sc)
		ic := &out[i]
		if h, ok := spanHead(text, c); ok {
			if _, seen := heads[h]; !seen {
				heads[h] = strings.Clone(h)
			}
			ic.str, ic.span = heads[h], true
		} else {
			ic.str = strings.Clone(c.Text)
		}
		if len(codes) == len(chunks) {
			ic.vec = codes[i]
		}
		total += int(ic.n)
	}
	packTerms(out)
	return out, total
}

// packTerms moves the chunks' term counts, packed one after another into
// a growing scratch buffer, into one array of their exact size per
// document, as their vector codes are (encodeVecs). One small array a
// chunk (about 450 bytes) was allocated between the indexing's garbage,
// and the process held 6-14 MB more anonymous memory idle after the bulk
// upload of 198,200 chunks (docs/benchmarks.md).
func packTerms(out []indexedChunk) {
	n := 0
	for i := range out {
		n += len(out[i].terms.p)
	}
	slab := make([]uint32, 0, n)
	for i := range out {
		at := len(slab)
		slab = append(slab, out[i].terms.p...)
		out[i].terms.p = slab[at:len(slab):len(slab)]
	}
}

// spanHead reports whether c is text[c.Start:c.End], alone or after a
// breadcrumb and a blank line (the breadcrumb returned), as spansOf
// records chunks.
func spanHead(text string, c Chunk) (string, bool) {
	if c.Start < 0 || c.End > len(text) || c.Start > c.End || c.End > math.MaxInt32 {
		return "", false
	}
	body := text[c.Start:c.End]
	if c.Text == body {
		return "", true
	}
	h, ok := strings.CutSuffix(c.Text, "\n\n"+body)
	return h, ok && h != ""
}

// textIn is c's text in doc, the entry text it was cut from; false when
// its span does not fit doc.
func (c *indexedChunk) textIn(doc string) (string, bool) {
	if !c.span {
		return c.str, true
	}
	if c.start < 0 || int(c.end) > len(doc) || c.start > c.end {
		return "", false
	}
	body := doc[c.start:c.end]
	if c.str == "" {
		return body, true
	}
	return c.str + "\n\n" + body, true
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
