package ingest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/extract"
	"github.com/contextd/contextd/internal/syncplan"
)

// Syncer keeps one corpus thread in line with a list of files.
type Syncer struct {
	Caller   Caller
	Thread   string // the corpus thread, e.g. kb:handbook
	Settings Settings
	// Extract bounds each extraction (zero: the extract defaults).
	Extract extract.Options
	// DryRun plans without writing; Plan receives each range's plan.
	DryRun bool
	// Plan, when set, is told every plan (the dry run prints them).
	Plan func(r Range, p *syncplan.Plan, docs []*Doc)
	// Progress is told about every file; nil reports nothing.
	Progress Progress
	// Cache, when set, skips the extraction of files whose size and
	// modification time are those of their last extraction.
	Cache *Cache
	// Workers extract files in parallel (default GOMAXPROCS).
	Workers int
	// RangeSize is the most files one plan covers (default and at most
	// 1,000, the manifest limit).
	RangeSize int
	// Now is the clock of synced_at (default time.Now).
	Now func() time.Time
	// AllowEmpty lets a sync of no files at all delete the whole corpus.
	// Without it such a sync is refused: an empty folder is more often a
	// mount that failed than a corpus that was emptied on purpose.
	AllowEmpty bool
}

// Range is one planned source-id range (After, Through]: nil bounds are
// open, so the first range reaches down to the smallest stored id and the
// last one up to the largest, and stored entries of deleted files at
// either end are planned too.
type Range struct {
	After, Through *string
	Files          []File
}

// Failure is one file the sync could not bring in line, and why.
type Failure struct {
	SourceID string
	Reason   string
}

// Summary counts what a sync did. Kept counts the sources left as they
// are stored because this run could not read or write them (each has a
// Failure).
type Summary struct {
	Files     int
	Created   int
	Updated   int
	Deleted   int
	Unchanged int
	Kept      int
	Foreign   int // other principals' readable managed entries in the thread
	// Empty counts the files with no text (empty, or nothing but markup):
	// nothing is stored for them (an entry an earlier run stored is left
	// as it is), and they are not failures.
	Empty    int
	Failures []Failure
	Elapsed  time.Duration
}

func (s Summary) String() string {
	return fmt.Sprintf("%d files: created %d, updated %d, deleted %d, unchanged %d, kept %d, failed %d (%.1fs)",
		s.Files, s.Created, s.Updated, s.Deleted, s.Unchanged, s.Kept, len(s.Failures), s.Elapsed.Seconds())
}

// Ranges cuts sorted files into consecutive ranges of at most size files.
func Ranges(files []File, size int) []Range {
	if size <= 0 || size > syncplan.MaxManifest {
		size = syncplan.MaxManifest
	}
	var out []Range
	var after *string
	for start := 0; start < len(files) || len(out) == 0; start += size {
		end := min(start+size, len(files))
		r := Range{After: after, Files: files[start:end]}
		if end < len(files) {
			t := files[end-1].SourceID
			r.Through = &t
			after = &t
		}
		out = append(out, r)
	}
	return out
}

// maxRounds bounds the plan-apply rounds of one range. Each round either
// deletes up to 100 entries or turns every write that failed into a keep
// item, so a range converges in 1 + deletes/100 rounds; the bound only
// guards against a server that keeps answering the same plan.
const maxRounds = 1000

// Sync plans and applies every range of files, then returns what it did.
// A range that fails (the server is unreachable, say) stops the sync with
// the summary so far; what was applied stays applied, and the next run
// picks up from the plan.
func (s *Syncer) Sync(ctx context.Context, files []File) (Summary, error) {
	start := time.Now()
	sum := Summary{Files: len(files)}
	if len(files) == 0 && !s.AllowEmpty {
		return sum, cerrors.Invalidf("the folder holds no documents: a sync would delete every entry of the corpus (allow it explicitly to do so)")
	}
	if s.Progress == nil {
		s.Progress = nopProgress{}
	}
	s.Progress.Start(len(files))
	defer s.Progress.Finish()
	for _, r := range Ranges(files, s.RangeSize) {
		if err := s.syncRange(ctx, r, &sum); err != nil {
			sum.Elapsed = time.Since(start)
			return sum, errors.Join(err, s.Cache.Save(files))
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, s.Cache.Save(files)
}

// syncRange brings one range in line.
func (s *Syncer) syncRange(ctx context.Context, r Range, sum *Summary) error {
	docs, failed := s.loadAll(ctx, r.Files)
	items := make([]syncplan.Item, len(r.Files))
	for i, f := range r.Files {
		switch d := docs[i]; {
		case d != nil:
			items[i] = syncplan.Item{SourceID: f.SourceID, TextDigest: d.TextDigest, MetaDigest: d.MetaDigest}
		case errors.Is(failed[i], errNoText):
			items[i] = syncplan.Item{SourceID: f.SourceID, Keep: true}
			sum.Empty++
		default:
			items[i] = syncplan.Item{SourceID: f.SourceID, Keep: true}
			sum.Failures = append(sum.Failures, Failure{f.SourceID, reason(failed[i])})
		}
	}
	for round := 0; ; round++ {
		if round == maxRounds {
			return fmt.Errorf("range %s: still changing after %d rounds", rangeName(r), maxRounds)
		}
		p, err := s.plan(ctx, r, items)
		if err != nil {
			return err
		}
		if round == 0 {
			sum.Unchanged += p.UnchangedCount
			sum.Foreign += p.ForeignCount // ranges are disjoint
			if s.Plan != nil {
				s.Plan(r, p, docs)
			}
		}
		if len(p.Creates)+len(p.Updates)+len(p.Deletes) == 0 || s.DryRun {
			sum.Kept += p.KeptCount
			return nil
		}
		if err := s.apply(ctx, p, r, docs, items, sum); err != nil {
			return err
		}
	}
}

// plan calls plan_context_sync for the range.
func (s *Syncer) plan(ctx context.Context, r Range, items []syncplan.Item) (*syncplan.Plan, error) {
	manifest := make([]any, len(items))
	for i, it := range items {
		manifest[i] = it.Arg()
	}
	args := map[string]any{"thread_id": s.Thread, "manifest": manifest, "allow_empty_manifest": len(items) == 0}
	if r.After != nil {
		args["source_id_after"] = *r.After
	}
	if r.Through != nil {
		args["source_id_through"] = *r.Through
	}
	var p syncplan.Plan
	if err := call(ctx, s.Caller, "plan_context_sync", args, &p); err != nil {
		return nil, fmt.Errorf("plan range %s: %w", rangeName(r), err)
	}
	return &p, nil
}

func rangeName(r Range) string {
	a, t := "start", "end"
	if r.After != nil {
		a = *r.After
	}
	if r.Through != nil {
		t = *r.Through
	}
	return "(" + a + ", " + t + "]"
}

// loadAll extracts the files of a range in parallel; a file that fails
// has a nil Doc and its error.
func (s *Syncer) loadAll(ctx context.Context, files []File) ([]*Doc, []error) {
	docs := make([]*Doc, len(files))
	failed := make([]error, len(files))
	workers := s.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if d, ok := s.Cache.lookup(files[i], s.Settings); ok {
					docs[i] = d
				} else if d, err := load(ctx, files[i], s.Settings, s.Extract); err != nil {
					failed[i] = err
				} else {
					s.Cache.put(d)
					docs[i] = d
				}
				s.Progress.Add(1)
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return docs, failed
}

// nopProgress reports nothing.
type nopProgress struct{}

func (nopProgress) Start(int) {}
func (nopProgress) Add(int)   {}
func (nopProgress) Finish()   {}

// Progress is told how a sync advances: Start with the number of files,
// Add(1) as each file has been read (from several goroutines at once),
// Finish when the sync ends.
type Progress interface {
	Start(total int)
	Add(done int)
	Finish()
}
