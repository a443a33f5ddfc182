package contextd_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/contextd/contextd"
	_ "github.com/contextd/contextd/persist/sqlite" // registers the default backend
)

// Example is the library example of README.md, which quotes its body
// between the README-EXAMPLE markers (docs/docs_test.go checks that the
// two agree).
func Example() {
	dir, _ := os.MkdirTemp("", "contextd-example")
	defer os.RemoveAll(dir)
	// README-EXAMPLE-BEGIN
	ctx := context.Background()
	eng, err := contextd.Open(ctx, contextd.Config{
		DBPath: filepath.Join(dir, "ctx.db"),
		FTS:    contextd.FTSConfig{Progress: io.Discard},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	ctx = contextd.WithPrincipal(ctx, contextd.Principal{ID: "local"})
	if _, err := eng.Store(ctx, contextd.StoreRequest{ThreadID: "notes", Source: "user", Text: "The deploy key lives in the vault."}); err != nil {
		fmt.Println(err)
		return
	}
	res, err := eng.FTSSearch(ctx, contextd.FTSSearchRequest{Query: "deploy key"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Count, res.Results[0].TextContent)
	// README-EXAMPLE-END

	// Output: 1 The deploy key lives in the vault.
}
