package search

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/quant"
)

// TestVectorsCompressionSettings_C14: with the float32 vectors kept
// (KeepFloat) the graph runs on them (graphOptions), by default on codes;
// a snapshot stored under other
// settings is rebuilt (with the reason), never reused; the ranking is the
// same in every storage; a bad setting is an ErrInvalid error.
func TestVectorsCompressionSettings_C14(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := testStore(t, dir)
	vdir := filepath.Join(dir, "ctx.db.vectors")
	a := put(t, st, 1, "alice", "near", unit(0, 1))
	b := put(t, st, 2, "alice", "far", unit(0, 3))
	put(t, st, 3, "bob", "bob's", unit(0, 1))
	for i, c := range []struct {
		s       quant.Settings
		codes   bool
		rebuilt bool
	}{
		{quant.Settings{CodesOnly: true}, true, false}, // first open: no snapshot yet
		{quant.Settings{CodesOnly: true}, true, false}, // same settings: the snapshot is used
		{quant.Settings{}, false, true},
		{quant.Settings{Disabled: true}, false, false}, // float32 either way
		{quant.Settings{Bits: 2, CodesOnly: true}, true, true},
		{quant.Settings{Bits: 2, Variant: quant.IP, CodesOnly: true}, true, true},
	} {
		var progress bytes.Buffer
		feed := follow.NewFeed(st)
		vs, err := OpenVectors(ctx, st, feed, VectorOptions{Dim: 4, Dir: vdir, Progress: &progress, Compression: c.s})
		if err != nil {
			t.Fatal(err)
		}
		if got := vs.ix.p.pool.Quantizer() != nil; got != c.codes {
			t.Fatalf("step %d (%+v): codes %v, want %v", i, c.s, got, c.codes)
		}
		if got := strings.Contains(progress.String(), "other compression settings"); got != c.rebuilt {
			t.Fatalf("step %d (%+v): rebuilt %v, want %v (progress %q)", i, c.s, got, c.rebuilt, progress.String())
		}
		if got := vecIDs(t, vs, "alice", unit(0, 1)); !slices.Equal(got, []string{a, b}) {
			t.Fatalf("step %d: ranking %v, want [%s %s]", i, got, a, b)
		}
		feed.Close()
		if err := vs.Close(); err != nil {
			t.Fatal(err)
		}
	}
	feed := follow.NewFeed(st)
	defer feed.Close()
	if _, err := OpenVectors(ctx, st, feed, VectorOptions{Dim: 4, Compression: quant.Settings{Bits: 7}}); !errors.Is(err, cerrors.ErrInvalid) {
		t.Fatalf("7 bits: %v", err)
	}
}
