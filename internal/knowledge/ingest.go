package knowledge

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/extract"
	"github.com/contextd/contextd/persist"
)

// job is one queued ingestion: the document, and the generation and
// upload job id it was queued for (a newer upload of the document has
// another job id, whichever process made it).
type job struct {
	doc string
	gen int
	id  string
}

// queue is the unbounded FIFO of ingestion jobs. Unbounded because every
// job is already durable (its document is Pending in the store): the
// queue only orders work, so an upload never waits for room.
type queue struct {
	mu     sync.Mutex
	jobs   []job
	own    map[string]int // upload job ids queued or running here, counted
	busy   int            // jobs popped and not yet done
	paused bool
	wake   chan struct{}
	closed bool
}

func newQueue() *queue { return &queue{wake: make(chan struct{}, 1)} }

// push queues j. After close it drops j: the document stays Pending in
// SQL, and the next start (or another process, after AdoptAfter) ingests
// it; the adopt loop or an upload can still be finishing as the service
// closes.
func (q *queue) push(j job) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.jobs = append(q.jobs, j)
	if q.own == nil {
		q.own = map[string]int{}
	}
	q.own[j.id]++
	q.signal()
}

// signal wakes one waiting worker, if none is already due to wake. The
// caller holds q.mu, so close cannot close the channel under the send.
func (q *queue) signal() {
	if q.closed {
		return
	}
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.wake)
	}
}

// pop waits for the next job; ok is false once ctx ends or the queue is
// closed.
func (q *queue) pop(ctx context.Context) (job, bool) {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return job{}, false
		}
		if len(q.jobs) > 0 && !q.paused {
			j := q.jobs[0]
			q.jobs = q.jobs[1:]
			q.busy++
			if len(q.jobs) > 0 { // pass the wake-up on to another worker
				q.signal()
			}
			q.mu.Unlock()
			return j, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return job{}, false
		case _, ok := <-q.wake:
			if !ok {
				return job{}, false
			}
		}
	}
}

// setPaused holds or releases the queue: a held queue keeps accepting
// jobs and hands none out.
func (q *queue) setPaused(p bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.paused = p
	if !p {
		q.signal()
	}
}

// Pause holds ingestion after the jobs already running: uploads still
// succeed and stay Pending until Resume (maintenance, and tests that
// read a document's Pending state).
func (s *Service) Pause() { s.q.setPaused(true) }

// Resume releases a paused ingestion queue.
func (s *Service) Resume() { s.q.setPaused(false) }

// done ends popped job j.
func (q *queue) done(j job) {
	q.mu.Lock()
	q.busy--
	if q.own[j.id]--; q.own[j.id] <= 0 {
		delete(q.own, j.id)
	}
	q.mu.Unlock()
}

// mine reports whether upload job id is queued or running here.
func (q *queue) mine(id string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.own[id] > 0
}

// idle reports no job queued or running.
func (q *queue) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return (len(q.jobs) == 0 || q.paused) && q.busy == 0
}

// WaitIdle waits until no ingestion is running or queued (a paused queue
// counts as idle), polling every
// 5 ms (tests and benchmarks measure upload-to-searchable with it).
func (s *Service) WaitIdle(ctx context.Context) error {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for !s.q.idle() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

func (s *Service) work(ctx context.Context) {
	for {
		j, ok := s.q.pop(ctx)
		if !ok {
			return
		}
		err := s.ingest(ctx, j)
		s.q.done(j)
		if err != nil && ctx.Err() == nil {
			s.log.Error("knowledge ingestion failed", "document", j.doc, "error", err)
		}
	}
}

// errNoContent is the failure of a document with no text to index.
const errNoContent = "No extractable content"

// ingest runs one job: Processing, parse, chunk, embed, then Ready (or
// Failed with the reason) unless a newer upload made the job stale, the
// document was deleted meanwhile, or another process finished it first.
func (s *Service) ingest(ctx context.Context, j job) error {
	docs, err := s.st.IndexDocs(ctx, []string{j.doc})
	if err != nil {
		return fmt.Errorf("load document: %w", err)
	}
	if len(docs) == 0 {
		return nil // deleted
	}
	e := &docs[0].Entry
	rec, ok := decodeRecord(e.Metadata)
	if !ok || rec.Job != j.id || rec.Status == Ready || rec.Status == Failed {
		return nil // stale (a newer upload has its own job) or done
	}
	current := func(r *record) bool {
		return r.Kind == "document" && r.Job == j.id && r.Status != Ready && r.Status != Failed
	}
	err = s.st.Write(ctx, func(tx persist.Tx) error {
		_, err := rewrite(ctx, tx, j.doc, s.opt.Now().UTC(), nil, func(r *record) (bool, error) {
			if !current(r) {
				return false, nil
			}
			r.Status = Processing
			return true, nil
		})
		return err
	})
	if err != nil {
		return err
	}
	// The parse, chunk and embed steps run under the job's own context:
	// a re-upload or a delete of the document cancels them at once
	// instead of letting a stale job finish work nobody will read.
	jctx, cancel := context.WithCancel(ctx)
	s.jobs.start(j.doc, j.gen, cancel)
	text, chunks, vecs, failure := s.prepare(jctx, rec, e.Text)
	cancelled := jctx.Err() != nil
	s.jobs.end(j.doc, j.gen, cancel)
	if ctx.Err() != nil {
		return ctx.Err() // shutting down: the document stays Processing and resumes
	}
	if cancelled {
		return nil // cancelled: a newer upload has its own job, or the document is gone
	}
	var newText *string
	if !textNative[Ext(rec.Name)] && failure == "" {
		newText = &text
	}
	now := s.opt.Now().UTC()
	if failure == "" {
		// The follower indexes the commit below; it takes these instead
		// of chunking and embedding the text again.
		s.built.put(j.doc, built{job: j.id, hash: hashText(text), chunks: chunks, vecs: vecs})
	}
	applied := false
	err = s.st.Write(ctx, func(tx persist.Tx) error {
		ok, err := rewrite(ctx, tx, j.doc, now, newText, func(r *record) (bool, error) {
			if !current(r) {
				return false, nil
			}
			r.Blob = ""
			if failure != "" {
				r.Status, r.Error, r.Chunks = Failed, failure, 0
				return true, nil
			}
			r.Status, r.Error, r.Chunks = Ready, "", len(chunks)
			r.Spans = spansOf(text, chunks)
			r.Hash = hashText(text)
			r.IndexedAt = now.Format(indexedAtLayout)
			if s.emb != nil {
				r.Model, r.Dims = s.emb.Model(), s.emb.Dim()
			}
			return true, nil
		})
		applied = ok
		return err
	})
	if err != nil || !applied {
		s.built.drop(j.doc)
	}
	return err
}

// indexedAtLayout is how record.IndexedAt is written.
const indexedAtLayout = "2006-01-02T15:04:05.000Z"

func (s *Service) model() (string, int) {
	if s.emb == nil {
		return "", 0
	}
	return s.emb.Model(), s.emb.Dim()
}

// prepare turns a document into its text, chunks and vectors; failure is
// the reason it cannot be indexed, as get_document will show it.
func (s *Service) prepare(ctx context.Context, rec record, stored string) (text string, chunks []Chunk, vecs [][]float32, failure string) {
	ext := Ext(rec.Name)
	if textNative[ext] {
		text = stored
	} else {
		data, err := base64.StdEncoding.DecodeString(rec.Blob)
		if err != nil {
			return "", nil, nil, "The stored file could not be read."
		}
		format, _ := extract.ForName(rec.Name)
		doc, err := extract.As(ctx, format, rec.Name, data, s.opt.Extract)
		if err != nil {
			return "", nil, nil, parseFailure(ext, err)
		}
		text = doc.Text
	}
	if strings.TrimSpace(text) == "" {
		return text, nil, nil, errNoContent
	}
	chunks, err := s.split(ctx, rec, text)
	if err != nil {
		return text, nil, nil, "Chunking failed: " + publicReason(err)
	}
	if len(chunks) == 0 {
		return text, nil, nil, errNoContent
	}
	vecs, err = s.embed(ctx, chunks)
	if err != nil {
		return text, nil, nil, "Embedding failed: " + publicReason(err)
	}
	return text, chunks, vecs, ""
}

// parseFailure words a parser's refusal as upstream does ("Error parsing
// PDF: ..."), keeping only the package's own reason: never a library's
// or driver's text, never a stack.
func parseFailure(ext string, err error) string {
	what := "Office document"
	if ext == ".pdf" {
		what = "PDF"
	}
	return "Error parsing " + what + ": " + publicReason(err)
}

// publicReason is the part of err a caller may read: the message of a
// contextd error, else a generic phrase (the detail goes to the log).
func publicReason(err error) string {
	var ce *cerrors.Error
	switch {
	case errors.As(err, &ce):
		return ce.Msg
	case errors.Is(err, cerrors.ErrMalformed):
		return "the file is malformed"
	case errors.Is(err, cerrors.ErrTooLarge):
		return "the file is too large"
	case errors.Is(err, context.DeadlineExceeded):
		return "it took too long"
	}
	return "the file could not be read"
}

// embed returns one vector per chunk (nil without an embedder), in
// batches of 64.
func (s *Service) embed(ctx context.Context, chunks []Chunk) ([][]float32, error) {
	if s.emb == nil {
		return nil, nil
	}
	// The chunker's own vectors are used only when every chunk has one
	// (requirements B3 step 9), so all of a document's vectors come from
	// one kind of text.
	out := make([][]float32, 0, len(chunks))
	for _, c := range chunks {
		if c.vec == nil {
			out = out[:0]
			break
		}
		out = append(out, c.vec)
	}
	if len(out) == len(chunks) {
		return out, nil
	}
	for i := 0; i < len(chunks); i += 64 {
		texts := make([]string, 0, 64)
		for _, c := range chunks[i:min(i+64, len(chunks))] {
			texts = append(texts, c.Text)
		}
		v, err := s.emb.Embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		if len(v) != len(texts) {
			return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(v), len(texts))
		}
		out = append(out, v...)
	}
	return out, nil
}

// running maps a document to its job in flight: the generation it
// ingests and its cancel function.
type running struct {
	mu sync.Mutex
	m  map[string]runningJob
}

type runningJob struct {
	gen    int
	cancel context.CancelFunc
}

func (r *running) start(doc string, gen int, cancel context.CancelFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]runningJob{}
	}
	r.m[doc] = runningJob{gen, cancel}
}

// end forgets the job and releases its context.
func (r *running) end(doc string, gen int, cancel context.CancelFunc) {
	r.mu.Lock()
	if j, ok := r.m[doc]; ok && j.gen == gen {
		delete(r.m, doc)
	}
	r.mu.Unlock()
	cancel()
}

// cancel stops the job running for doc if it ingests a generation older
// than gen (math.MaxInt: any).
func (r *running) cancel(doc string, gen int) {
	r.mu.Lock()
	j, ok := r.m[doc]
	r.mu.Unlock()
	if ok && j.gen < gen {
		j.cancel()
	}
}
