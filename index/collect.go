package index

import "runtime"

// collectBytes is the text a batch must carry for Apply to collect the
// garbage its indexing left once it is applied.
//
// Indexing allocates about 40 bytes per text byte, and at its height
// about 35 of them are live at once (term locations twice: the analysis
// and Bleve's copy of it, then the encoded postings). The collector's next
// goal is twice the live heap it last saw, so after the largest legal text
// (10 Mi bytes; 434 MB live at its height in the server) the process was
// allowed to grow to 869 MB before the runtime looked again, and the
// requests after it (a read of the entry, four greps) filled that room:
// peak RSS 745-879 MB in TestLargestTextGrepRSS, against an 800 MB bound.
// One collection right after the batch frees the indexing's garbage and
// resets the goal to twice what stays (the index, about 60 MB); it costs
// tens of milliseconds against about 2 s of indexing per 10 Mi bytes, and
// a batch of small notes (a few KB) never causes one.
const collectBytes = 1 << 20

// collectAfter runs a collection when upserts carried collectBytes of
// text or more.
func collectAfter(upserts []Doc) {
	n := 0
	for i := range upserts {
		n += len(upserts[i].Text)
	}
	if n >= collectBytes {
		runtime.GC()
	}
}
