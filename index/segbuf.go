package index

import (
	zapx "github.com/blevesearch/zapx/v17"
)

// Every Bleve batch becomes an in-memory zap segment (zapx v17, scorch's
// default), encoded into one buffer that the segment then keeps as its
// data until the persister replaces it with the file. zapx sizes that
// buffer in advance from the previous segment it built: average bytes a
// document times the batch's documents plus NewSegmentBufferNumResultsBump,
// 100 by default. That bump suits batches of many small documents; for
// large ones it reserves a hundred documents' worth that is never used:
// after a 1 MB knowledge document (about 2.8 MB of segment with term
// vectors) each later batch reserved 288 MB, and a heap profile taken
// 13 s after a bulk_upload of 100 such files was Ready (1,419 MB
// resident 30 s after) held 290 MB in one such buffer, 30% of the heap
// in use. With no bump the estimate is the batch's own documents at the
// last average, and a batch that needs more grows the buffer as any
// bytes.Buffer does (at most one doubling copy).
func init() {
	zapx.NewSegmentBufferNumResultsBump = 0
}
