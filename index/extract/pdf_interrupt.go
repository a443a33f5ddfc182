package extract

import (
	"context"
	"errors"
	"io"
)

// The PDF library cannot be cancelled, and some inputs never end for it:
// a page tree whose Kids point back to an ancestor sends Page into an
// endless walk (a 594-byte file kept a core busy after upload_file had
// given up on it, for good; four saturated the machine). Every object it
// resolves is read from the file through the io.ReaderAt it was given,
// so that reader is where the parse is stopped: once the extraction's
// context ends (As's deadline, or the caller's), the next read panics
// with errInterrupted, which the extractor's recover turns into an
// error, and the goroutine As abandoned ends too. A read budget bounds
// the walk even while the deadline is far: an honest parse reads each
// object a few times; an endless one reads the same ones without end.

// errInterrupted is the panic value of a read after the parse must stop.
var errInterrupted = errors.New("PDF parse interrupted")

// maxReadsPer is the read budget per byte of file, with minReads as the
// floor: the 50-page fixture reads about 2,000 times for 60 KB.
const (
	maxReadsPer = 4
	minReads    = 1 << 16
)

// interruptible is an io.ReaderAt that stops the parse reading it.
type interruptible struct {
	done  <-chan struct{} // the extraction's context's
	r     io.ReaderAt
	left  int
	limit int
}

func newInterruptible(ctx context.Context, r io.ReaderAt, size int) *interruptible {
	n := max(minReads, maxReadsPer*size)
	return &interruptible{done: ctx.Done(), r: r, left: n, limit: n}
}

func (x *interruptible) ReadAt(p []byte, off int64) (int, error) {
	select {
	case <-x.done:
		panic(errInterrupted)
	default:
	}
	if x.left--; x.left < 0 {
		panic(errReadBudget)
	}
	return x.r.ReadAt(p, off)
}

// errReadBudget is the panic value of a read past the budget.
var errReadBudget = errors.New("the PDF's object graph does not end (a cycle?)")
