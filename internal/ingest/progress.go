package ingest

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// LineEvery is how often the plain progress lines are written.
const LineEvery = 2 * time.Second

// NewProgress returns a per-file progress bar on w when w is a terminal,
// and otherwise plain lines, one every LineEvery while the sync runs
// (whether or not a file finished since the last one), so a log file or
// CI output gets readable lines instead of carriage returns and a long
// file or a slow server never leaves it silent.
func NewProgress(w io.Writer) Progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &barProgress{w: w}
	}
	return &lineProgress{w: w, every: LineEvery}
}

// barProgress is a progress bar advanced by every file. Add may be called
// from several goroutines (the bar locks itself).
type barProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (p *barProgress) Start(total int) {
	p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription("syncing"),
		progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("files"),
		progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	_ = p.bar.RenderBlank()
}

func (p *barProgress) Add(n int) { _ = p.bar.Add(n) }
func (p *barProgress) Finish()   { _ = p.bar.Finish() }

// lineProgress writes "read N/M files" lines on a timer.
type lineProgress struct {
	w     io.Writer
	every time.Duration

	mu          sync.Mutex
	total, done int
	start       time.Time
	stop        chan struct{}
	stopped     sync.WaitGroup
}

func (p *lineProgress) Start(total int) {
	p.mu.Lock()
	p.total, p.done, p.start = total, 0, time.Now()
	p.mu.Unlock()
	fmt.Fprintf(p.w, "contextd ingest: %d files to sync\n", total)
	p.stop = make(chan struct{})
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.line()
			}
		}
	}()
}

func (p *lineProgress) line() {
	p.mu.Lock()
	done, total, elapsed := p.done, p.total, time.Since(p.start)
	p.mu.Unlock()
	fmt.Fprintf(p.w, "contextd ingest: %d/%d files done (%.0f files/s, %.0fs)\n", done, total,
		float64(done)/max(elapsed.Seconds(), 1e-3), elapsed.Seconds())
}

func (p *lineProgress) Add(n int) {
	p.mu.Lock()
	p.done += n
	p.mu.Unlock()
}

func (p *lineProgress) Finish() {
	if p.stop != nil {
		close(p.stop)
		p.stopped.Wait()
		p.stop = nil
	}
	p.line()
}
