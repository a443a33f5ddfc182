package migrate

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows a migration's advance: a bar on a terminal, a line every
// two seconds (and a last one) elsewhere, nothing without a writer.
type progress struct {
	w           io.Writer
	bar         *progressbar.ProgressBar
	verb        string
	total, done int
	last, start time.Time
}

func newProgress(w io.Writer, verb string, total int) *progress {
	p := &progress{w: w, verb: verb, total: total, start: time.Now()}
	if w == nil {
		return p
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(verb),
			progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("chunks"),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		return p
	}
	fmt.Fprintf(w, "contextd migrate %s: %d chunk vectors\n", verb, total)
	return p
}

func (p *progress) add(n int) {
	p.done += n
	switch {
	case p.w == nil:
	case p.bar != nil:
		_ = p.bar.Add(n)
	case time.Since(p.last) >= 2*time.Second:
		p.last = time.Now()
		p.line()
	}
}

func (p *progress) finish() {
	switch {
	case p.w == nil:
	case p.bar != nil:
		_ = p.bar.Finish()
	}
	if p.w != nil {
		p.line()
	}
}

func (p *progress) line() {
	fmt.Fprintf(p.w, "contextd migrate %s: %d/%d chunk vectors (%.0f/s)\n", p.verb, p.done, p.total,
		float64(p.done)/max(time.Since(p.start).Seconds(), 1e-3))
}
