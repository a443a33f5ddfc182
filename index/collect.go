package index

import (
	"runtime"
	"runtime/metrics"

	"github.com/contextd/contextd/internal/memrelease"
)

// Apply collects the garbage a large batch's indexing left right after
// applying it, when the batch's transient heap outweighs what was live
// before: at least collectBytes of text, and transientPerByte times its
// text bytes at least the live heap the last collection before the batch
// found (a collection during the batch sees the transient heap itself).
//
// Indexing allocates about 40 bytes per text byte, and at its height
// about 35 of them are live at once (term locations twice, the analysis
// and Bleve's copy of it, then the encoded postings). The collector's next
// goal is twice the live heap it last saw, so after the largest legal text
// (10 Mi bytes; 407-434 MB live at its height in the server) the process
// was allowed to grow to 815-869 MB before the runtime looked again, and
// the requests after it (a read of the entry, four greps) filled that
// room: peak RSS 745-879 MB in TestLargestTextGrepRSS against an 800 MB
// bound. One collection right after the batch frees the indexing's
// garbage and resets the goal to twice what stays (the index, about
// 60 MB there); it costs tens of milliseconds against about 2 s of
// indexing. A rebuild's pages, whose transient heap is small next to the
// index already built, and batches of small notes never cause one.
const (
	collectBytes     = 1 << 20
	transientPerByte = 32
)

// analysisPercent is the collector's goal (GOGC) while a group of at least
// collectBytes of text is analysed and indexed. The live heap peaks at the
// end of zapx's copy of the analysis, when both hold every word's location
// (the analysis 72 bytes a word, zapx's 56): 425-443 MB in the server for
// one 10 MiB text of 1.75 million words. A collection that marks there
// sets the next goal from that height, and at memrelease.TightPercent (25)
// the heap then grew to 520-565 MB before the next one (a trace of the
// sixteen 10 MiB texts of one store_context_batch), 600-615 MB of
// anonymous memory. At 10 it stops at 1.1 times the height.
const analysisPercent = 10

// groupPercent is the collector's goal while group (n bytes of text) is
// applied over a live heap of liveBefore bytes: analysisPercent when a
// text of the group is large (collectBytes or more) and the analysis
// weighs at least half the live heap, otherwise memrelease.TightPercent.
// A goal of 10 makes a collection of every tenth of the live heap
// allocated: cheap while the analysis is most of the heap, not over a
// large index (a bulk_upload of 1 MB documents held 1.3 GB live), whose
// every collection marks it all again, nor over a rebuild's pages of
// ordinary notes.
func groupPercent(group []Doc, n int, liveBefore uint64) int {
	largest := 0
	for i := range group {
		largest = max(largest, len(group[i].Text))
	}
	if largest >= collectBytes && 2*uint64(n)*transientPerByte >= liveBefore {
		return analysisPercent
	}
	return memrelease.TightPercent
}

// liveHeap is the live heap the last collection found.
func liveHeap() uint64 {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return live[0].Value.Uint64()
}

// collectAfter runs a collection after upserts when they call for one;
// liveBefore is liveHeap before they were applied.
func collectAfter(upserts []Doc, liveBefore uint64) {
	if n := groupBytes(upserts); n >= collectBytes && uint64(n)*transientPerByte >= liveBefore {
		runtime.GC()
	}
}

// groupBytes is the text of docs, in bytes.
func groupBytes(docs []Doc) int {
	n := 0
	for i := range docs {
		n += len(docs[i].Text)
	}
	return n
}
