package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index"
	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/persist"
)

// FullTextOptions configures full-text search. The zero value serves it
// with the in-process backend in English, in memory.
type FullTextOptions struct {
	// Disable switches full-text search off (ENABLE_FTS=false).
	Disable bool
	// Backend is SEARCH_BACKEND: InProcess (default, Bleve) or Native
	// (the database's own full-text engine).
	Backend string
	// Language is FTS_LANGUAGE (default english).
	Language string
	// Dir holds the in-process index snapshot; "" keeps no snapshot (the
	// index is rebuilt at each start, in a temporary directory).
	Dir string
	// Progress receives index rebuild progress (default os.Stderr).
	Progress io.Writer
}

// FullText is the engine's full-text search: configuration and the
// backend serving it.
type FullText struct {
	enabled     bool
	backend     string
	lang        string
	unavailable string // why search cannot run, "" when it can
	st          persist.Store
	native      persist.NativeFullText
	stop        map[string]bool // FTS_LANGUAGE's stop words (index.StopWords)
	ix          *index.Index
	follow      *follow.Follower
	target      *bleveTarget
	// pages is search_context's catalog when no in-process index keeps
	// one (native backend, or full-text search off): pagecat.go.
	pages *pageCatalog
}

// OpenFullText sets up the configured backend; the in-process index joins
// feed. A store that cannot serve it leaves full-text search unavailable
// (the tool says so); an invalid configuration is an ErrInvalid error.
func OpenFullText(ctx context.Context, st persist.Store, feed *follow.Feed, o FullTextOptions) (*FullText, error) {
	ft := &FullText{enabled: !o.Disable, backend: FullTextBackend(o.Backend), lang: o.Language, st: st}
	if ft.lang == "" {
		ft.lang = index.DefaultLanguage
	}
	if !index.ValidLanguage(ft.lang) {
		return nil, cerrors.Invalidf("full-text language must be one of %s, got %q", strings.Join(index.Languages(), ", "), ft.lang)
	}
	if ft.enabled && ft.backend != InProcess && ft.backend != Native {
		return nil, cerrors.Invalidf("full-text backend must be in-process or native, got %q", ft.backend)
	}
	if !ft.enabled || ft.backend == Native {
		if err := ft.openOutOfProcess(ctx); err != nil {
			return nil, err
		}
		// search_context's pages still come from a catalog.
		ft.pages = openPageCatalog(ctx, st, feed, o.Dir, o.Progress)
		return ft, nil
	}
	if err := ft.dropTriggers(ctx); err != nil {
		return nil, err
	}
	// Without a snapshot directory the index is rebuilt at every start,
	// in a scratch directory rather than in memory, where Bleve would
	// never merge its segments (index/scratch.go).
	ix, err := index.Open(index.Options{Dir: o.Dir, Language: ft.lang, Scratch: o.Dir == ""})
	if err != nil {
		return nil, fmt.Errorf("open full-text index: %w", err)
	}
	ft.ix = ix
	b := &bleveTarget{st: st, ix: ix, progress: progressOrStderr(o.Progress), lastSave: time.Now()}
	ft.target = b
	ft.follow = feed.Follow("full-text index", b)
	b.follow = ft.follow
	err = b.start(ctx)
	if err == nil {
		err = ft.follow.Start(ctx)
	}
	if err != nil {
		_ = ix.Close()
		return nil, err
	}
	return ft, nil
}

// openOutOfProcess sets up full-text search without the in-process
// index: switched off, or the database's own engine (unavailable when
// the store has none).
func (ft *FullText) openOutOfProcess(ctx context.Context) error {
	if !ft.enabled {
		ft.unavailable = "Full-text search is disabled (ENABLE_FTS=false)"
		return ft.dropTriggers(ctx)
	}
	n := ft.st.Native().FullText
	if n == nil {
		ft.unavailable = "Full-text search is not available: the storage backend has no native full-text search (SEARCH_BACKEND=native)"
		return nil
	}
	stop, err := index.StopWords(ft.lang)
	if err != nil {
		return err
	}
	ft.stop = stop
	if err := n.EnsureFullTextLanguage(ctx, ft.lang); err != nil {
		return fmt.Errorf("full-text language: %w", err)
	}
	ft.native = n
	return nil
}

// dropTriggers saves every write the native full-text index's upkeep when
// this engine does not search it.
func (ft *FullText) dropTriggers(ctx context.Context) error {
	d := ft.st.Native().FullText
	if d == nil {
		return nil
	}
	if err := d.DropFullTextTriggers(ctx); err != nil {
		return fmt.Errorf("full-text index: %w", err)
	}
	return nil
}

// Close stops the index's applier and closes it (an on-disk index seals
// its snapshot).
func (ft *FullText) Close() error {
	if ft.pages != nil {
		err := ft.pages.close()
		ft.pages = nil
		return err
	}
	if ft.ix == nil {
		return nil
	}
	ft.follow.Stop()
	// The catalog snapshot spares the next start-up its SQL scan; without
	// it (a failure is reported) the next start-up scans SQL again.
	serr := ft.target.saveCatalog(context.Background())
	err := errors.Join(serr, ft.ix.Close())
	ft.ix = nil
	return err
}

// Enabled reports whether full-text search is switched on (ENABLE_FTS is
// not false); Unavailable says why it cannot run ("" when it can).
func (ft *FullText) Enabled() bool       { return ft.enabled }
func (ft *FullText) Unavailable() string { return ft.unavailable }

// Backend is the SEARCH_BACKEND serving full-text search; Language its
// FTS_LANGUAGE.
func (ft *FullText) Backend() string { return ft.backend }

// FullTextBackend is the backend a FullTextOptions.Backend of configured
// selects: InProcess when unset.
func FullTextBackend(configured string) string { return cmp.Or(configured, InProcess) }
func (ft *FullText) Language() string          { return ft.lang }

// Index is the in-process index, nil with another backend.
func (ft *FullText) Index() *index.Index { return ft.ix }

// WaitSettled waits until the in-process index's work beside the calls
// (merges, compaction, warm-ups: index.WaitSettled) is done, or ctx ends;
// at once with another backend.
func (ft *FullText) WaitSettled(ctx context.Context) error {
	if ft == nil || ft.ix == nil {
		return nil
	}
	return ft.ix.WaitSettled(ctx)
}

// NativeHighlights reports a native engine that highlights its hits.
func (ft *FullText) NativeHighlights() bool {
	return ft.native != nil && ft.native.FullTextInfo().Highlights
}

// CollectionStats are the document frequencies the built-in reranker
// weighs acc's query terms with; nil when no backend serves. The
// in-process index counts the entries acc may read (index/stats.go); a
// native engine counts every stored entry (the reference's behaviour,
//
func (ft *FullText) CollectionStats(acc persist.Access) builtin.DocFreqs {
	switch {
	case ft.ix != nil:
		return caughtUpStats{ft: ft, s: ft.ix.Stats(index.Access{Principal: acc.Principal, Groups: acc.Groups})}
	case ft.native != nil:
		return ft.native
	}
	return nil
}

// caughtUpStats are the in-process statistics once the index has applied
// every committed write (a semantic search reranks without a full-text
// search having caught up first).
type caughtUpStats struct {
	ft *FullText
	s  index.ReadableStats
}

func (c caughtUpStats) DocFreqs(ctx context.Context, words []string) ([]int, int, error) {
	if err := c.ft.follow.CatchUp(ctx); err != nil {
		return nil, 0, err
	}
	return c.s.DocFreqs(ctx, words)
}

// FullTextQuery is one full-text ranking.
type FullTextQuery struct {
	// Filter holds the structural filters; its metadata conditions are
	// the store's to evaluate.
	persist.Filter
	Text, Mode string // Mode: a persist.FullText* mode ("" is match)
	Depth      int    // the most candidates returned
	Highlight  bool
	Explain    bool
	// Matched is how many of the first in-process hits get
	// FullTextHit.Matched.
	Matched int
}

// FullTextHit is one ranked candidate of either backend.
type FullTextHit struct {
	ID          string
	Score       float64
	Spans       [][2]int // in-process highlight ranges
	Highlighted string   // native highlight
	// Terms are the in-process query's index terms: spans of a hit
	// searched without highlight are computed from its text when needed.
	Terms []string
	// Matched is how many of the distinct Terms the entry holds, for the
	// first FullTextQuery.Matched in-process hits (index.Hit.Matched).
	Matched int
}

// Rank computes the one ordering of at most q.Depth candidates readable
// by acc (the fixed depth for fts_search_context, more for a hybrid leg),
// with the plan when q.Explain.
func (ft *FullText) Rank(ctx context.Context, acc persist.Access, q FullTextQuery) ([]FullTextHit, string, error) {
	if q.Mode == "" {
		q.Mode = persist.FullTextMatch
	}
	if ft.native != nil {
		// The database indexes stop words too; the query drops neutral
		// words as the in-process index does (index.Neutral).
		text, mode := index.NativeQuery(q.Text, q.Mode, ft.lang, ft.stop)
		res, err := ft.native.FullTextSearch(ctx, acc, persist.FullTextQuery{
			Filter: q.Filter, Query: text, Mode: mode, Language: ft.lang, Limit: q.Depth, Highlight: q.Highlight, Explain: q.Explain,
		})
		if err != nil {
			return nil, "", fmt.Errorf("fts search: %w", err)
		}
		out := make([]FullTextHit, len(res.Hits))
		for i, h := range res.Hits {
			out[i] = FullTextHit{ID: h.ID, Score: h.Score, Highlighted: h.Highlighted}
		}
		return out, res.Plan, nil
	}
	if err := ft.follow.CatchUp(ctx); err != nil {
		return nil, "", err
	}
	f := q.Filter
	iq := index.Query{
		Text: q.Text, Mode: q.Mode, Access: index.Access{Principal: acc.Principal, Groups: acc.Groups},
		ThreadID: f.ThreadID, Source: f.Source, Content: f.ContentType, Tags: f.Tags,
		Start: f.Start, End: f.End, IDs: f.IDs, Size: q.Depth, Highlight: q.Highlight, Explain: q.Explain,
		OmitKnowledge: f.OmitKnowledge, Matched: q.Matched,
	}
	if len(f.Meta) > 0 {
		// Metadata conditions are SQL's: their readable matches become
		// part of the allowed set.
		ids, err := ft.st.FilterIDs(ctx, acc, f)
		if err != nil {
			return nil, "", fmt.Errorf("fts search: %w", err)
		}
		iq.IDs = ids
	}
	res, err := ft.ix.Search(ctx, iq)
	if err != nil {
		return nil, "", fmt.Errorf("fts search: %w", err)
	}
	out := make([]FullTextHit, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = FullTextHit{ID: h.ID, Score: h.Score, Spans: h.Spans, Terms: res.Terms, Matched: h.Matched}
		if q.Highlight && out[i].Spans == nil {
			out[i].Spans = [][2]int{}
		}
	}
	return out, res.Plan, nil
}

// Indexed reports the engine serving full-text search and how many of
// the entries acc may read it holds, of readable (for get_statistics).
func (ft *FullText) Indexed(ctx context.Context, acc persist.Access, readable int) (engine string, entries int, err error) {
	switch {
	case ft.native != nil:
		// The FTS5 table is written by triggers in every writing
		// transaction: it holds exactly the stored entries.
		return ft.native.FullTextInfo().Engine, readable, nil
	case ft.ix != nil:
		engine = "bleve scorch (bm25)"
		if err := ft.follow.CatchUp(ctx); err != nil {
			return engine, 0, err
		}
		n, err := ft.ix.CountReadable(ctx, index.Access{Principal: acc.Principal, Groups: acc.Groups})
		if err != nil {
			return engine, 0, err
		}
		return engine, int(n), nil
	}
	return "", 0, nil
}
