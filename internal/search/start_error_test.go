package search

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/persist"
)

// failingHead is a store whose change log cannot be read.
type failingHead struct{ persist.Store }

var errNoHead = errors.New("change log unreadable")

func (failingHead) LastSeq(context.Context) (int64, error) { return 0, errNoHead }

// TestFullTextStartFailureReported: when the in-process index cannot
// start (its first rebuild fails), OpenFullText says so instead of
// serving an empty index (the error was once dropped by a shadowed err).
func TestFullTextStartFailureReported(t *testing.T) {
	st := failingHead{testStore(t, t.TempDir())}
	ft, err := OpenFullText(context.Background(), st, follow.NewFeed(st), FullTextOptions{Dir: t.TempDir(), Progress: io.Discard})
	if err == nil {
		_ = ft.Close()
		t.Fatal("OpenFullText succeeded on a store whose change log cannot be read")
	}
	if !errors.Is(err, errNoHead) || !strings.Contains(err.Error(), "full-text index") {
		t.Fatalf("error %v", err)
	}
}
