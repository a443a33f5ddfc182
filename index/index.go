package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/contextd/contextd/index/catalog"
	"github.com/contextd/contextd/index/token"
	"github.com/contextd/contextd/internal/memrelease"
)

// Field names of an index document.
const (
	fieldText    = "text"
	fieldACL     = "acl"     // o:<owner>, u:<user grant>, g:<group grant>, and "public"
	fieldThread  = "thread"  // thread_id
	fieldSource  = "source"  // user | agent
	fieldCType   = "ctype"   // text | multimodal
	fieldTags    = "tags"    // one term per tag
	fieldCreated = "created" // created_at, unix microseconds
	fieldLen     = "tlen"    // stored only: the text's length in index terms
)

// tokenPublic is the acl term of a public entry.
const tokenPublic = "public"

// watermarkKey is the internal key holding the change-log watermark. It is
// written in the same batch as the documents, so the index on disk always
// agrees with its watermark, also after a crash.
var watermarkKey = []byte("contextd.watermark")

// Options configures an Index. The zero value is an English in-memory
// index.
type Options struct {
	// Dir holds the on-disk snapshot (<DB_PATH>.index); "" keeps the index
	// in memory only.
	Dir string
	// Language is the FTS_LANGUAGE (default english).
	Language string
	// LockTimeout bounds the wait for another process's lock on the
	// snapshot (default 1s); past it the index is kept in memory instead.
	LockTimeout time.Duration
	// MaxQueryTerms bounds the distinct terms one search scores, and
	// MaxPrefixExpansions the index terms its prefixes expand to
	// (limits.go; 0: DefaultMaxQueryTerms, DefaultMaxPrefixExpansions).
	MaxQueryTerms, MaxPrefixExpansions int
	// MaxCandidates bounds the entries a pruned disjunction's selection
	// visits (limits.go; 0: DefaultMaxCandidates).
	MaxCandidates int
	// Scratch keeps an index without Dir in a private temporary directory,
	// removed at Close, instead of in memory (scratch.go): Bleve merges
	// its segments only on disk.
	Scratch bool
}

// Doc is one entry as the index holds it.
type Doc struct {
	ID          string
	Text        string
	Owner       string
	Public      bool
	Readers     []string // grant principals as "u:<id>" or "g:<id>" (read or write)
	ThreadID    string
	Source      string
	ContentType string
	Tags        []string
	CreatedAt   time.Time
	Metadata    []byte // JSON; nil: none (the catalog's metadata columns)
	// Summarized (a non-empty summary), Images and Nodes (the numbers of
	// image attachments and node summaries) are the catalog's get_statistics figures.
	Summarized bool
	Images     int
	Nodes      int
}

// Index is an open full-text index. It is safe for concurrent use: Apply
// calls are serialized; searches run beside them.
type Index struct {
	mu       sync.Mutex // serializes Apply and Reset
	bi       bleve.Index
	lang     string
	analyzer analysis.Analyzer
	words    *wordTerms // analyzer's filters, memoised (nil: not over package token)
	snap     *snapshot  // nil in memory
	scratch  string     // the temporary directory of Options.Scratch, "" without
	// scratchLock holds scratch's owner lock (scratch.go).
	scratchLock *os.File
	fresh       bool
	note        string
	stop        map[string]bool // the language's stop words, folded (Neutral)

	// The allowed-set prefilter (prefilter.go): the catalog of access and
	// filter bitmaps, the per-segment ordinal arrays, and view, held for
	// writing while Apply changes Bleve and the catalog together.
	view sync.RWMutex
	cat  *catalog.Catalog
	ords ordCache
	// blocks are the MaxScore walk's block bounds (maxscore_block.go).
	blocks blockCache

	// lensStale: the catalog was loaded without text lengths; the first
	// statistics fill them (stats.go).
	lensMu    sync.Mutex
	lensStale bool

	// maxTerms and maxExpansions are Options' cost bound (limits.go).
	maxTerms, maxExpansions, maxCandidates int

	// noPrune selects candidates with the whole disjunction (prune.go):
	// the oracle of the pruning test.
	noPrune bool
	// noMaxScore selects with the exhaustive walk (exact.go), not
	// MaxScore (maxscore.go): the oracle of TestMaxScoreMatchesExhaustive.
	noMaxScore bool

	// life is held (read) by the work that may outlive a call and runs
	// beside Apply (ReleaseMapped, the mapped-page guard), and (write) by
	// Close while it closes Bleve.
	life sync.RWMutex
	// guard is the mapped-page guard's state (mapguard.go).
	guard mapGuard
	// building: a build of block bounds outside the searches runs
	// (warm.go, buildLater); built, when set (tests), hears of each end.
	// inlineBlocks: searches build them (the oracle tests, which need
	// them built when the walk asks).
	building     atomic.Bool
	built        chan struct{}
	inlineBlocks bool
	// merges warms the segments merges make (warmmerge.go).
	merges mergeWatch

	// prints are the fingerprints of the long texts indexed, so that an
	// unchanged one is not indexed again (unchanged.go); under mu.
	prints fingerprints
}

// Fresh reports that the index was created empty (no snapshot, or one that
// was missing, stale or corrupt) and must be rebuilt from SQL.
func (ix *Index) Fresh() bool { return ix.fresh }

// Note says why the index is fresh (or kept in memory), for the progress
// message.
func (ix *Index) Note() string { return ix.note }

// Language is the index's FTS_LANGUAGE.
func (ix *Index) Language() string { return ix.lang }

// OnDisk reports whether the index keeps a snapshot on disk.
func (ix *Index) OnDisk() bool { return ix.snap != nil }

func newMapping(language string) (*mapping.IndexMappingImpl, error) {
	m := bleve.NewIndexMapping()
	m.ScoringModel = "bm25" // Bleve's default is still tf-idf
	if err := addAnalyzer(m, language); err != nil {
		return nil, err
	}
	doc := bleve.NewDocumentStaticMapping()
	text := bleve.NewTextFieldMapping()
	text.Analyzer = analyzerName
	text.Store = false
	text.IncludeTermVectors = true // phrase queries and highlight offsets
	text.IncludeInAll = false
	text.DocValues = false
	doc.AddFieldMappingsAt(fieldText, text)
	for _, f := range []string{fieldACL, fieldThread, fieldSource, fieldCType, fieldTags} {
		kw := bleve.NewKeywordFieldMapping()
		kw.Store = false
		kw.IncludeInAll = false
		kw.IncludeTermVectors = false
		kw.DocValues = false
		doc.AddFieldMappingsAt(f, kw)
	}
	num := bleve.NewNumericFieldMapping()
	num.Store = false
	num.IncludeInAll = false
	num.DocValues = false
	doc.AddFieldMappingsAt(fieldCreated, num)
	tlen := bleve.NewNumericFieldMapping()
	tlen.Index = false
	tlen.Store = true
	tlen.IncludeInAll = false
	tlen.DocValues = false
	doc.AddFieldMappingsAt(fieldLen, tlen)
	m.DefaultMapping = doc
	m.DefaultAnalyzer = analyzerName
	return m, nil
}

// Open opens the index of o: the snapshot in o.Dir when it is intact and
// of the same format and language, otherwise a fresh empty index (see
// Fresh). A snapshot locked by another process is not waited for past
// o.LockTimeout: the index then lives in memory and is rebuilt.
func Open(o Options) (*Index, error) {
	if o.Language == "" {
		o.Language = DefaultLanguage
	}
	if !ValidLanguage(o.Language) {
		return nil, fmt.Errorf("index: unknown full-text language %q", o.Language)
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = time.Second
	}
	m, err := newMapping(o.Language)
	if err != nil {
		return nil, fmt.Errorf("index: mapping: %w", err)
	}
	stop, err := StopWords(o.Language)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	ix := &Index{lang: o.Language, cat: catalog.NewMeta(), stop: stop, maxTerms: o.MaxQueryTerms, maxExpansions: o.MaxPrefixExpansions, maxCandidates: o.MaxCandidates}
	ix.guard.budget = mappedBudget
	if o.Dir != "" {
		snap, bi, fresh, note, err := openSnapshot(o.Dir, o.Language, m, o.LockTimeout)
		switch {
		case err == nil:
			ix.bi, ix.snap, ix.fresh, ix.note = bi, snap, fresh, note
		case errors.Is(err, errLocked):
			ix.note = fmt.Sprintf("snapshot %s is in use by another process; keeping this process's index in memory", o.Dir)
		default:
			return nil, err
		}
	}
	if ix.bi == nil {
		if o.Scratch {
			// Without a writable temporary directory (a read-only
			// container) the index stays in memory, as before.
			if dir, lock, err := newScratch(os.TempDir()); err == nil {
				ix.scratch, ix.scratchLock = dir, lock
			} else if ix.note == "" {
				ix.note = fmt.Sprintf("in-memory index (no temporary directory: %v)", err)
			}
		}
		bi, err := ix.newUnsaved(m)
		if err != nil {
			_ = ix.removeScratch()
			return nil, err
		}
		ix.bi, ix.fresh = bi, true
		if ix.note == "" {
			ix.note = "in-memory index"
		}
	}
	ix.analyzer = m.AnalyzerNamed(analyzerName)
	if ix.analyzer == nil {
		_ = ix.bi.Close()
		_ = ix.removeScratch()
		return nil, fmt.Errorf("index: analyzer for %s is missing", o.Language)
	}
	ix.words = newWordTerms(ix.analyzer)
	return ix, nil
}

// Close closes the index; an on-disk index writes its snapshot header with
// the watermark and checksum.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.bi == nil {
		return nil
	}
	wm, _ := ix.watermark()
	ix.life.Lock()
	err := ix.bi.Close()
	ix.bi = nil
	ix.life.Unlock()
	if ix.snap != nil && err == nil {
		err = ix.snap.seal(wm)
	}
	err = errors.Join(err, ix.removeScratch())
	if err != nil {
		return fmt.Errorf("index: close: %w", err)
	}
	return nil
}

// Watermark is the change-log seq the index has applied up to.
func (ix *Index) Watermark() (int64, error) {
	return ix.watermark()
}

func (ix *Index) watermark() (int64, error) {
	v, err := ix.bi.GetInternal(watermarkKey)
	if err != nil {
		return 0, fmt.Errorf("index: read watermark: %w", err)
	}
	if len(v) != 8 {
		return 0, nil
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// textLengths returns the lengths of the texts of docs, on every CPU, as
// BM25 counts them (textLength).
func (ix *Index) textLengths(docs []Doc) []int {
	out := make([]int, len(docs))
	workers := min(runtime.GOMAXPROCS(0), len(docs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for {
				i := int(next.Add(1)) - 1
				if i >= len(docs) {
					return
				}
				out[i], buf = textLength(docs[i].Text, buf)
			}
		}()
	}
	wg.Wait()
	return out
}

// textLength is a text's length for BM25: its number of index terms,
// stop words included, which is Bleve's field length (every filter maps a
// token to one term), so the document lengths in the postings' norms and
// the collection's total agree. Leaving stop words out of the total only
// scored Cranfield higher (nDCG@10 0.3760 against 0.3713) by mismatching
// the two; counting them is textbook BM25 over what is
// indexed. Counting by the tokenizer alone holds no token stream in
// memory, so the largest legal text (300 MB) costs nothing extra.
func textLength(text string, buf []byte) (int, []byte) {
	n := 0
	buf = token.Scan(text, buf, func(int, int, []byte) { n++ })
	return n, buf
}

// DocCount is the number of indexed entries.
func (ix *Index) DocCount() (uint64, error) {
	n, err := ix.bi.DocCount()
	if err != nil {
		return 0, fmt.Errorf("index: count: %w", err)
	}
	return n, nil
}

func docFields(d *Doc, length int) map[string]any {
	acl := make([]string, 0, 2+len(d.Readers))
	acl = append(acl, "o:"+d.Owner)
	if d.Public {
		acl = append(acl, tokenPublic)
	}
	acl = append(acl, d.Readers...)
	tags := d.Tags
	if tags == nil {
		tags = []string{}
	}
	return map[string]any{
		fieldText:    d.Text,
		fieldACL:     acl,
		fieldThread:  d.ThreadID,
		fieldSource:  d.Source,
		fieldCType:   d.ContentType,
		fieldTags:    tags,
		fieldCreated: float64(d.CreatedAt.UnixMicro()),
		fieldLen:     float64(length),
	}
}

// Apply indexes upserts, removes deletes and advances the watermark to
// seq. A watermark below the current one is kept (replays are
// idempotent). Readers see the whole change or none of it.
//
// Bleve analyses a batch's documents all at once, about 35 live bytes per
// text byte at the height (collect.go), so one change-log batch of
// sixteen 10 MiB texts held several gigabytes. Upserts are therefore
// applied in groups of at most applyGroupBytes of text (a larger text
// alone), each collected after when it calls for it, under one view lock;
// the watermark goes with the last group, so a crash between groups
// replays the change.
func (ix *Index) Apply(ctx context.Context, upserts []Doc, deletes []string, seq int64) error {
	return ix.ApplyRead(ctx, 1, func(context.Context, int) ([]Doc, []string, error) {
		return upserts, deletes, nil
	}, seq)
}

// ApplyRead is Apply with the change read in n parts: read(ctx, p) returns
// part p's upserts and deletes, called in order under the same locks, so
// only one part's texts need be in memory at a time (a caller that knows
// the texts' sizes cuts the parts by them). Readers still see the whole
// change or none of it; the watermark goes with the last part. An error of
// read ends the call: the parts before it stay applied, the watermark is
// not advanced, so the whole change is applied again (replays are
// idempotent).
func (ix *Index) ApplyRead(ctx context.Context, n int, read func(ctx context.Context, p int) ([]Doc, []string, error), seq int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// The first part is read before the locks: a change of one part (all
	// but the largest) keeps searches waiting for its analysis only.
	upserts, deletes, err := read(ctx, 0)
	if err != nil {
		return err
	}
	if n > 1 || groupBytes(upserts) >= collectBytes {
		// The tight goal of applyGroup, held across the whole change:
		// between two groups the default goal came back, and the next
		// part's read and analysis ran with room for twice the live heap
		// (goals of 633-647 MB in a trace of the sixteen 10 MiB texts,
		// against 350-480 MB while a group held it).
		defer memrelease.Tighten()()
		defer ix.guardMapped()() // and the merges after it (mapguard.go)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	cur, err := ix.watermark()
	if err != nil {
		return err
	}
	ix.view.Lock()
	defer ix.view.Unlock()
	for p := range max(n, 1) {
		if p > 0 {
			if upserts, deletes, err = read(ctx, p); err != nil {
				return err
			}
		}
		groups := textGroups(upserts, applyGroupBytes)
		for g, group := range groups {
			last := p >= n-1 && g == len(groups)-1
			if g > 0 {
				deletes = nil // removed with the part's first group
			}
			if err := ix.applyGroup(group, deletes, last && seq > cur, seq); err != nil {
				return err
			}
		}
	}
	ix.watchMerges()
	return nil
}

// applyGroup is one Bleve batch of ApplyRead: group's upserts, deletes, and
// the watermark seq when mark. The caller holds ix.mu and ix.view.
func (ix *Index) applyGroup(group []Doc, deletes []string, mark bool, seq int64) error {
	live := liveHeap()
	if n := groupBytes(group); n >= collectBytes {
		// The analysis of a large text is garbage within the batch;
		// a tight collector goal keeps the process near its live heap
		// (collect.go, analysisPercent).
		defer memrelease.TightenTo(groupPercent(group, n, live))()
	}
	b := ix.bi.NewBatch()
	for _, id := range deletes {
		b.Delete(id)
	}
	lens := ix.textLengths(group)
	changed := make([]Doc, 0, len(group)) // the upserts Bleve indexes (unchanged.go)
	for i := range group {
		if ix.prints.unchanged(&group[i]) {
			continue
		}
		changed = append(changed, group[i])
		d, err := ix.document(&group[i], lens[i])
		if err == nil {
			err = b.IndexAdvanced(d)
		}
		if err != nil {
			return fmt.Errorf("index: document %s: %w", group[i].ID, err)
		}
	}
	if mark {
		var v [8]byte
		binary.BigEndian.PutUint64(v[:], uint64(seq))
		b.SetInternal(watermarkKey, v[:])
	}
	if err := ix.bi.Batch(b); err != nil {
		return fmt.Errorf("index: apply batch: %w", err)
	}
	ix.applyCatalog(group, lens, deletes)
	ix.prints.indexed(changed, deletes)
	collectAfter(changed, live)
	return nil
}

// ApplyGroupBytes is the most text one Bleve batch of Apply analyses.
const ApplyGroupBytes = 4 << 20

var applyGroupBytes = ApplyGroupBytes // a variable for the tests

// textGroups cuts docs, in order, into runs of at most limit bytes of
// text (a longer text alone); there is always at least one group, empty
// when docs is.
func textGroups(docs []Doc, limit int) [][]Doc {
	var out [][]Doc
	start := 0
	for _, end := range Runs(len(docs), func(i int) int { return len(docs[i].Text) }, limit) {
		out = append(out, docs[start:end])
		start = end
	}
	return out
}

// Runs cuts n items, in order, into runs whose sizes (size(i) bytes each)
// add up to at most limit (a larger item alone), and returns each run's
// end; there is always at least one run, empty when n is 0.
func Runs(n int, size func(i int) int, limit int) []int {
	var ends []int
	start, sum := 0, 0
	for i := range n {
		t := size(i)
		if i > start && sum+t > limit {
			ends = append(ends, i)
			start, sum = i, 0
		}
		sum += t
	}
	return append(ends, n)
}

// Reset empties the index (for a rebuild) and sets its watermark to 0.
func (ix *Index) Reset() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	m, err := newMapping(ix.lang)
	if err != nil {
		return err
	}
	// The work beside the calls (warm-ups, the merge watcher, the
	// mapped-page guard) reads ix.bi under ix.life, and some of it takes
	// the view after it: the same order here.
	ix.life.Lock()
	defer ix.life.Unlock()
	ix.view.Lock()
	defer ix.view.Unlock()
	ix.cat.Reset()
	ix.ords.reset()
	ix.prints.reset()
	if err := ix.bi.Close(); err != nil {
		return fmt.Errorf("index: reset: %w", err)
	}
	if ix.snap != nil {
		bi, err := ix.snap.recreate(m)
		if err != nil {
			return err
		}
		ix.bi = bi
		return nil
	}
	bi, err := ix.newUnsaved(m)
	if err != nil {
		return fmt.Errorf("index: reset: %w", err)
	}
	ix.bi = bi
	return nil
}

// removeAll removes path, tolerating its absence.
func removeAll(path string) error {
	if err := os.RemoveAll(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
