package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/persist"
)

// The chunk index follows the store's change log like the full-text and
// vector indexes (internal/follow): every committed write, whichever
// process or replica made it, reaches it through Apply, and every read
// (search_knowledge, container_stats, a lookup by path) catches up
// first, so what it answers is the committed state of the moment. A
// process's own uploads and ingestions are not put into the index by
// hand: they reach it through the log like anybody's.

// target is the chunk index as a follow.Target.
type target struct{ s *Service }

// Apply brings the documents among ids up to date with the store.
//
// A change-log batch names every entry written, memories included, and
// re-reading each whole would read the context tools' writes a second
// time only to find they are not documents. Document ids tell themselves
// apart instead (docID: UUID version 8, derived from the container and
// path, where entries get version 7), so only those and the documents
// already indexed (written before ids were derived, found by the rebuild
// from SQL) are read. The one case this misses: a process of an earlier
// version creating documents while this one runs, which this index sees
// at its next rebuild (a restart without its snapshot); run one version
// at a time.
func (t target) Apply(ctx context.Context, ids []string, last int64) error {
	s := t.s
	var want []string
	for _, id := range ids {
		if isDocID(id) || s.idx.has(id) {
			want = append(want, id)
		}
	}
	if len(want) > 0 {
		docs, err := s.st.IndexDocs(ctx, want)
		if err != nil {
			return fmt.Errorf("knowledge index: read documents: %w", err)
		}
		seen := make(map[string]bool, len(docs))
		for i := range docs {
			seen[docs[i].ID] = true
			if err := s.applyDoc(ctx, &docs[i].Entry); err != nil {
				return err
			}
		}
		for _, id := range want {
			if !seen[id] { // deleted
				s.idx.forget(id)
				s.built.drop(id)
				s.adopter.note(id, job{}, "", true, time.Time{})
				s.jobs.cancel(id, math.MaxInt)
			}
		}
	}
	s.idx.setWatermark(last)
	return nil
}

// MaybeSnapshot (called by the adopt loop) writes the snapshot when
// documents changed since the last one and snapshotEvery has passed: often enough that a restart replays
// little, rarely enough that a stream of uploads does not rewrite a large
// file after each.
func (t target) MaybeSnapshot() {
	s := t.s
	if s.opt.SnapshotPath == "" {
		return
	}
	s.idx.mu.RLock()
	due := s.idx.changed > 0 && time.Since(s.lastSave) >= snapshotEvery
	s.idx.mu.RUnlock()
	if due {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.save(ctx); err != nil {
			s.log.Warn("knowledge index snapshot failed", "error", err)
		}
	}
}

// snapshotEvery is the least time between two snapshots written while
// the server runs (Close writes one too).
const snapshotEvery = 30 * time.Second

// applyDoc indexes entry e as the store holds it: a knowledge document's
// state, and for a Ready one its chunks, built again only when its text
// or upload changed. An entry that is not a document leaves the index.
func (s *Service) applyDoc(ctx context.Context, e *persist.Entry) error {
	r, ok := decodeRecord(e.Metadata)
	if !strings.HasPrefix(e.ThreadID, docThreadPrefix) || !ok || r.Kind != "document" {
		s.idx.forget(e.ID)
		s.adopter.note(e.ID, job{}, "", true, time.Time{})
		return nil
	}
	h := hashText(e.Text)
	d := &docIndex{container: r.Container, path: r.Path, gen: r.Generation, job: r.Job, size: r.sizeOf(e.Text, h),
		status: r.Status, hash: h, model: r.Model, dims: r.Dims}
	d.indexedAt, _ = time.Parse(indexedAtLayout, r.IndexedAt)
	// Text changed by the context tools (update_context) since ingestion:
	// the chunks, vectors and size follow the new text.
	edited := r.edited(h)
	if edited {
		d.model, d.dims = s.model()
	}
	s.adopter.note(e.ID, job{doc: e.ID, gen: r.Generation, id: r.Job}, r.Status, r.Status == Ready || r.Status == Failed, time.Now())
	if r.Status != Ready {
		s.idx.put(e.ID, d, false)
		return nil
	}
	if s.idx.keepChunks(e.ID, r.Job, h) {
		s.idx.put(e.ID, d, true)
		return nil
	}
	chunks, vecs, ok := s.takeBuilt(e.ID, r.Job, h)
	if !ok {
		var err error
		chunks, vecs, err = s.chunkStored(ctx, r, e.Text, edited)
		if ctx.Err() != nil {
			return ctx.Err() // the catch-up runs again
		}
		if err != nil {
			// The document stays listed; what could be built is indexed
			// (no vectors: Keyword still finds it). Stalling the whole
			// index on one document would hide every later write.
			s.log.Error("knowledge index: document not fully indexed", "document", e.ID, "error", err)
		}
	}
	d.chunks, d.totalLen = s.idx.indexChunks(e.Text, chunks, vecs)
	s.idx.put(e.ID, d, false)
	return nil
}

// chunkStored rebuilds a Ready document's chunks from its stored text
// (from the recorded spans unless the text was edited since) and embeds
// them. On an embedding failure the chunks come back without vectors.
func (s *Service) chunkStored(ctx context.Context, r record, text string, edited bool) ([]Chunk, [][]float32, error) {
	chunks, ok := chunksOf(text, r.Spans)
	if edited || !ok || len(r.Spans) != r.Chunks {
		var err error
		if chunks, err = s.split(ctx, r, text); err != nil {
			return nil, nil, fmt.Errorf("chunk: %w", err)
		}
	}
	vecs, err := s.embed(ctx, chunks)
	if err != nil {
		return chunks, nil, fmt.Errorf("embed: %w", err)
	}
	return chunks, vecs, nil
}

// built is what an ingestion of this process computed for a document,
// kept until the follower applies the commit that made it Ready, so the
// index does not chunk and embed the same text a second time.
type built struct {
	job, hash string
	chunks    []Chunk
	vecs      [][]float32
}

// builtCache holds built results by document id.
type builtCache struct {
	mu sync.Mutex
	m  map[string]built
}

func (c *builtCache) put(id string, b built) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]built{}
	}
	c.m[id] = b
}

func (c *builtCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}

// takeBuilt returns and forgets the built result of document id when it
// is for upload job and text hash.
func (s *Service) takeBuilt(id, job, hash string) ([]Chunk, [][]float32, bool) {
	c := &s.built
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[id]
	if !ok {
		return nil, nil, false
	}
	delete(c.m, id)
	if b.job != job || b.hash != hash {
		return nil, nil, false
	}
	return b.chunks, b.vecs, true
}

// rebuild fills the index from every document of the store (at start
// when no usable snapshot exists), on the workers' count of goroutines:
// chunking and embedding dominate.
func (s *Service) rebuild(ctx context.Context, head int64) error {
	err := follow.Scan(ctx, "knowledge index: rebuild", s.st.ScanIndexDocs,
		func(d *persist.IndexDoc) string { return d.ID },
		func(page []persist.IndexDoc) error {
			var (
				wg   sync.WaitGroup
				mu   sync.Mutex
				next int
				ferr error
			)
			for range s.opt.Workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						mu.Lock()
						i := next
						next++
						stop := i >= len(page) || ferr != nil
						mu.Unlock()
						if stop {
							return
						}
						if err := s.applyDoc(ctx, &page[i].Entry); err != nil {
							mu.Lock()
							ferr = err
							mu.Unlock()
						}
					}
				}()
			}
			wg.Wait()
			return ferr
		})
	if err != nil {
		return err
	}
	s.idx.setWatermark(head)
	return nil
}

// catchUp makes the index hold every committed change: the start-up load
// first, then the change-log rows not yet applied.
func (s *Service) catchUp(ctx context.Context) error {
	if err := s.indexed(ctx); err != nil {
		return err
	}
	return s.fol.CatchUp(ctx)
}

// docID is the id of the document at path p of container c: derived from
// both, so that an upload in any process or replica finds a document
// already at its path by id, inside its own write transaction (writes
// are serialized), without a lookup that another process's index could
// answer late. It is a UUID of version 8 (RFC 9562's custom form), which
// the entry ids minted elsewhere (version 7) never are (Apply relies on
// it). A document deleted and uploaded again at its path gets its id
// back; its upload job (record.Job) tells the two apart.
func docID(container, p string) string {
	h := sha256.Sum256([]byte("contextd knowledge document\x00" + container + "\x00" + p))
	h[6] = 0x80 | h[6]&0x0f
	h[8] = 0x80 | h[8]&0x3f
	return hex.EncodeToString(h[:16])
}

// isDocID reports whether id has docID's form.
func isDocID(id string) bool {
	return len(id) == 32 && id[12] == '8'
}
