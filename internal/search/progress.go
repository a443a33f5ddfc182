package search

import (
	"io"
	"log/slog"
	"strings"
	"sync"
)

// LockedWriter writes to W under Mu: the full-text and the vector index
// open side by side and write their rebuild progress to one writer.
type LockedWriter struct {
	Mu *sync.Mutex
	W  io.Writer
}

func (l LockedWriter) Write(p []byte) (int, error) {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	return l.W.Write(p)
}

// LogWriter logs each line written to it at Info, without a leading
// "contextd: ": rebuild progress when no writer is configured.
type LogWriter struct{ Log *slog.Logger }

func (w LogWriter) Write(p []byte) (int, error) {
	for line := range strings.Lines(string(p)) {
		if line = strings.TrimSpace(strings.TrimPrefix(line, "contextd: ")); line != "" {
			w.Log.Info(line)
		}
	}
	return len(p), nil
}
