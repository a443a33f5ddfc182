// Package search owns the search legs of the engine below its ranking:
// full-text search (the in-process Bleve index of package index following
// the change log, or the database's own engine through
// persist.Store.Native) and vector search (the in-process HNSW of package
// vector with its access catalog, or the database's native vector
// search). It opens the configured backend of each, ranks the readable
// entries of a query into one ordering of at most the asked depth,
// reports what the indexes hold, and closes them (writing snapshots).
//
// The in-process indexes follow the store's change log through package
// follow: applied in the background after each commit and caught up
// before each search, rebuilt or reconciled from the store when a
// snapshot is missing, stale or corrupt. They never write to the store.
//
//	feed := follow.NewFeed(st)
//	ft, err := search.OpenFullText(ctx, st, feed, search.FullTextOptions{Dir: dbPath + ".index"})
//	hits, plan, err := ft.Rank(ctx, acc, search.FullTextQuery{Text: "connection refused", Depth: 100})
//	vs, err := search.OpenVectors(ctx, st, feed, search.VectorOptions{Dim: 384, Dir: dbPath + ".vectors"})
//	near, plan, err := vs.Rank(ctx, acc, search.VectorQuery{Vector: qv, Depth: 100})
//	err = errors.Join(vs.Close(), ft.Close())
//
// Parsing and validating requests, fusion, reranking and hydration stay
// above: a leg receives typed values and returns ids with scores.
package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/contextd/contextd/index"
	"github.com/contextd/contextd/internal/memrelease"
	"github.com/contextd/contextd/persist"
)

// Search backends (SEARCH_BACKEND).
const (
	InProcess = "in-process"
	Native    = "native"
)

// visibilityPublic is the persist.Entry visibility every principal reads.
const visibilityPublic = "public"

// progressOrStderr is where rebuild progress goes when the configuration
// names no writer.
func progressOrStderr(w io.Writer) io.Writer {
	if w == nil {
		return os.Stderr
	}
	return w
}

// readers are the principals an entry's grants let read it: read and
// write grants both confer READ; the indexes hold principals as "u:<id>"
// and "g:<id>".
func readers(grants []persist.Grant) []string {
	var out []string
	for _, g := range grants {
		switch g.PrincipalType {
		case "user":
			out = append(out, "u:"+g.PrincipalID)
		case "group":
			out = append(out, "g:"+g.PrincipalID)
		}
	}
	return out
}

// changedDocs re-reads the entries ids of a change-log batch: the ones
// that exist, whole, and the ids of those that no longer do.
func changedDocs(ctx context.Context, src persist.IndexSource, ids []string) ([]persist.IndexDoc, []string, error) {
	return changed(ctx, src.IndexDocs, ids)
}

// accessSource reads entries without their text (sqlstore.Reader does).
type accessSource interface {
	AccessDocs(ctx context.Context, ids []string) ([]persist.IndexDoc, error)
}

// accessDocs reads the entries among ids without their text when src can
// (a catalog needs only the access, filter and metadata fields), whole
// otherwise.
//
// Without the text is not without reading it: in SQLite's
// context_entries the owner, visibility, metadata and dates come after
// text_content in the record, so reaching them walks the text's chain of
// overflow pages, through the map of the database file (SQLITE_MMAP_SIZE)
// where a store maps it. A catalog's read of the sixteen 10 MiB entries of
// one store_context_batch left 175-243 MB of the file resident in one
// connection's map, at the moment the full-text index began to analyse
// them (peak RSS 862 MB, 276 MB of it the file). When src tells the texts'
// sizes and can release, the entries are therefore read in parts of at
// most partBytes of text, the mapped pages handed back after each part of
// releaseBytes or more (releaseLarge).
func accessDocs(src persist.IndexSource) func(ctx context.Context, ids []string) ([]persist.IndexDoc, error) {
	a, ok := src.(accessSource)
	if !ok {
		return src.IndexDocs
	}
	ss, sized := src.(sizeSource)
	r, releases := src.(releaser)
	if !sized || !releases {
		return a.AccessDocs
	}
	return func(ctx context.Context, ids []string) ([]persist.IndexDoc, error) {
		if len(ids) == 0 {
			return a.AccessDocs(ctx, ids)
		}
		sizes, err := ss.TextSizes(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("read text sizes: %w", err)
		}
		var out []persist.IndexDoc
		start := 0
		for _, end := range index.Runs(len(ids), func(i int) int { return sizes[ids[i]] }, partBytes) {
			docs, err := a.AccessDocs(ctx, ids[start:end])
			if err != nil {
				return nil, err
			}
			out = append(out, docs...)
			n := 0
			for _, id := range ids[start:end] {
				n += sizes[id]
			}
			if n >= releaseBytes {
				_ = r.ReleaseMemory(ctx) // a failure only leaves the pages mapped
			}
			start = end
		}
		return out, nil
	}
}

// changedAccessDocs is changedDocs without the texts, where src can.
func changedAccessDocs(ctx context.Context, src persist.IndexSource, ids []string) ([]persist.IndexDoc, []string, error) {
	return changed(ctx, accessDocs(src), ids)
}

func changed(ctx context.Context, read func(ctx context.Context, ids []string) ([]persist.IndexDoc, error), ids []string) ([]persist.IndexDoc, []string, error) {
	docs, err := read(ctx, ids)
	if err != nil {
		return nil, nil, fmt.Errorf("read entries: %w", err)
	}
	seen := make(map[string]bool, len(docs))
	for i := range docs {
		seen[docs[i].ID] = true
	}
	var dels []string
	for _, id := range ids {
		if !seen[id] {
			dels = append(dels, id)
		}
	}
	return docs, dels, nil
}

// sizeSource tells the text sizes of entries (sqlstore.Reader does).
type sizeSource interface {
	TextSizes(ctx context.Context, ids []string) (map[string]int, error)
}

// partBytes is the most text a follower reads for one part of a change
// (index.Index.ApplyRead): the size of the full-text index's own groups.
const partBytes = index.ApplyGroupBytes

// sizedParts cuts ids, in order, into runs whose texts hold at most limit
// bytes together (a longer text alone) when src tells sizes and the texts
// need more than one run; otherwise ids is the one part. Sizes are read
// without the texts and may change before the texts are read: they only
// bound memory.
func sizedParts(ctx context.Context, src persist.IndexSource, ids []string, limit int) ([][]string, error) {
	ss, ok := src.(sizeSource)
	if !ok || len(ids) < 2 {
		return [][]string{ids}, nil
	}
	sizes, err := ss.TextSizes(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("read text sizes: %w", err)
	}
	var out [][]string
	start := 0
	for _, end := range index.Runs(len(ids), func(i int) int { return sizes[ids[i]] }, limit) {
		out = append(out, ids[start:end])
		start = end
	}
	return out, nil
}

// releaser returns the memory a store holds outside the Go heap
// (persist/sqlite: its page caches and the mapped database file).
type releaser interface {
	ReleaseMemory(ctx context.Context) error
}

// ReleaseMemory is the idle engine's upkeep. It first builds the
// full-text search caches of segments that appeared since (a load's
// merges: index.WarmSearch; at 1M the first search after a load paid
// about a second for them), then returns what the engine holds outside
// the Go heap: the store's page caches and maps (when it has them) and
// the pages of the index's segment files (index.ReleaseMapped; ft may be
// nil or out of process), which the warm-up read too. Both keep working:
// what a later call touches is faulted back in from the kernel's page
// cache. The vector leg's arrays (vecs may be nil) give back the capacity
// their growth left unused (vector.Index.Trim), copied within the memory
// limit's headroom (memrelease.Headroom).
func ReleaseMemory(ctx context.Context, st any, ft *FullText, vecs *Vectors) error {
	var errs []error
	if vecs != nil && vecs.ix != nil {
		vecs.ix.trim(memrelease.Headroom())
	}
	if ft != nil && ft.ix != nil {
		errs = append(errs, ft.ix.WarmSearch())
	}
	if r, ok := st.(releaser); ok {
		errs = append(errs, r.ReleaseMemory(ctx))
	}
	if ft != nil && ft.ix != nil {
		_, err := ft.ix.ReleaseMapped()
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// releaseLarge hands back the store's mapped pages after a read of at
// least releaseBytes of text. SQLite reads through its map of the database
// file, so each text read stayed resident as file-backed pages until the
// server next went quiet: during the indexing of the sixteen 10 MiB texts
// of one store_context_batch, 300-500 MB of the process's RSS were the
// database file's pages (against 430-570 MB of its own memory). The texts
// are Go strings by then; the next read maps what it touches again. A
// failure only leaves the pages mapped.
func releaseLarge(ctx context.Context, st persist.IndexSource, docs []persist.IndexDoc) {
	r, ok := st.(releaser)
	if !ok {
		return
	}
	n := 0
	for i := range docs {
		n += len(docs[i].Text)
	}
	if n >= releaseBytes {
		_ = r.ReleaseMemory(ctx)
	}
}

// releaseBytes is the least text read at once after which releaseLarge
// releases: reads of ordinary notes never pay for a release.
const releaseBytes = 1 << 20
