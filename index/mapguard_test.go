package index

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/internal/memrelease"
)

// TestMappedGuard: a change of a large text starts the guard, which
// releases the segments' pages while the file-backed resident set is
// above its budget (here always), and ends once the change is applied
// and no merge runs, leaving every answer as it was.
func TestMappedGuard(t *testing.T) {
	if memrelease.FileResident() == 0 {
		t.Skip("no /proc/self/status")
	}
	ix, err := Open(Options{Dir: filepath.Join(t.TempDir(), "db.index")})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.guard.budget = 1
	ix.guard.exited = make(chan struct{}, 1)
	ctx := context.Background()
	if err := ix.Apply(ctx, testDocs(), nil, 1); err != nil {
		t.Fatal(err)
	}
	big := Doc{ID: "big", Text: strings.Repeat("guarded pages of a long text ", 1<<16), Owner: "alice"} // 1.9 MB
	if err := ix.Apply(ctx, []Doc{big}, nil, 2); err != nil {
		t.Fatal(err)
	}
	<-ix.guard.exited
	if ix.guard.releases.Load() == 0 {
		t.Fatal("the guard released nothing above its budget")
	}
	res, err := ix.Search(ctx, Query{Text: "guarded pages", Mode: "match", Access: Access{Principal: "alice"}, Size: 10})
	if err != nil || ids(res) != "big" {
		t.Fatalf("after the guard: %q, %v", ids(res), err)
	}
}
