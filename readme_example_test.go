package contextd_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/contextd/contextd"
	_ "github.com/contextd/contextd/persist/sqlite" // registers the SQLite backend
)

// Example_library is the library example of README.md, which quotes its
// body between the README-EXAMPLE markers (a test in docs/ checks that the
// two agree).
func Example_library() {
	dir, _ := os.MkdirTemp("", "contextd-readme")
	defer os.RemoveAll(dir)
	// README-EXAMPLE-BEGIN
	ctx := context.Background()
	eng, err := contextd.Open(ctx, contextd.Config{
		DBPath: filepath.Join(dir, "memory.db"),
		FTS:    contextd.FTSConfig{Progress: io.Discard}, // no index-build progress on stderr
	})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()

	// Every call runs as a principal: the owner of what it stores.
	ctx = contextd.WithPrincipal(ctx, contextd.Principal{ID: "agent-1"})
	_, err = eng.Store(ctx, contextd.StoreRequest{
		ThreadID: "project-x",
		Source:   "agent",
		Text:     "The staging database moved to db2.internal on Monday.",
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := eng.FTSSearch(ctx, contextd.FTSSearchRequest{Query: "staging database"})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Results {
		fmt.Println(r.ThreadID, r.TextContent)
	}
	// README-EXAMPLE-END

	// Output: project-x The staging database moved to db2.internal on Monday.
}
