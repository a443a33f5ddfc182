package sqlstore_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/postgres"
	"github.com/contextd/contextd/persist/sqlite"
	"github.com/contextd/contextd/persist/sqlstore"
)

var update = flag.Bool("update", false, "rewrite the golden files of the builder test")

// TestBuilderGolden pins the SQL text and the arguments (with their Go
// types) each dialect writes for a table of filters: the access
// predicates, every structural filter, every metadata operator with each
// kind of value, and the refused conditions with their error texts. The
// golden files were first written by the two stores' own builders before
// they shared this package, so a change to them is a change of the SQL the
// stores send (and of its plans); rewrite them with -update only for a
// change meant as such.
func TestBuilderGolden(t *testing.T) {
	for _, d := range []sqlstore.Dialect{sqlite.Dialect, postgres.Dialect} {
		t.Run(d.Name(), func(t *testing.T) {
			var out bytes.Buffer
			for _, c := range goldCases() {
				b := sqlstore.NewBuilder(d)
				b.W("SELECT 1 FROM context_entries e WHERE ")
				if err := b.Filter(c.Acc, c.Filter); err != nil {
					fmt.Fprintf(&out, "== %s\nerr: %v\n", c.Name, err)
					continue
				}
				fmt.Fprintf(&out, "== %s\nsql: %s\nargs: %s\n", c.Name, b.String(), goldArgs(b.Args()))
				for _, lo := range [][2]int{{0, 0}, {10, 5}} {
					sb, err := sqlstore.SearchSQL(d, c.Acc, persist.SearchQuery{Filter: c.Filter, Limit: lo[0], Offset: lo[1]}, "e.id")
					if err != nil {
						t.Fatalf("%s: SearchSQL refused what Filter took: %v", c.Name, err)
					}
					fmt.Fprintf(&out, "search: %s\nargs: %s\n", sb.String(), goldArgs(sb.Args()))
				}
				ab := sqlstore.NewBuilder(d)
				ab.Aggregate(c.Acc, "e").W(" ; ").Writable(c.Acc, "x")
				fmt.Fprintf(&out, "agg: %s\nargs: %s\n", ab.String(), goldArgs(ab.Args()))
			}
			path := filepath.Join("testdata", d.Name()+".golden")
			if *update {
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				got, wl := bytes.Split(out.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
				for i := 0; i < len(got) && i < len(wl); i++ {
					if !bytes.Equal(got[i], wl[i]) {
						t.Fatalf("line %d differs:\n got: %s\nwant: %s", i+1, got[i], wl[i])
					}
				}
				t.Fatalf("output has %d lines, golden %d", len(got), len(wl))
			}
		})
	}
}
