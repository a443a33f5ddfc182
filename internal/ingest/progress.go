package ingest

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// NewProgress returns a progress bar on w when w is a terminal, and plain
// log lines (one per range, at most every two seconds) otherwise, so a
// log file or CI output gets readable lines instead of carriage returns.
func NewProgress(w io.Writer) Progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &barProgress{w: w}
	}
	return &lineProgress{w: w, every: 2 * time.Second}
}

type barProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (p *barProgress) Start(total int) {
	p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription("syncing"),
		progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("files"),
		progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
}

func (p *barProgress) Add(n int) { _ = p.bar.Add(n) }
func (p *barProgress) Finish()   { _ = p.bar.Finish() }

// lineProgress writes "synced N/M files" lines.
type lineProgress struct {
	w           io.Writer
	every       time.Duration
	total, done int
	last        time.Time
	start       time.Time
}

func (p *lineProgress) Start(total int) {
	p.total, p.start = total, time.Now()
	fmt.Fprintf(p.w, "contextd ingest: %d files to sync\n", total)
}

func (p *lineProgress) Add(n int) {
	p.done += n
	if time.Since(p.last) >= p.every || p.done == p.total {
		p.last = time.Now()
		fmt.Fprintf(p.w, "contextd ingest: synced %d/%d files (%.0f files/s)\n", p.done, p.total,
			float64(p.done)/max(time.Since(p.start).Seconds(), 1e-3))
	}
}

func (p *lineProgress) Finish() {}
