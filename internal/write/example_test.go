package write_test

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/write"
	"github.com/contextd/contextd/persist/sqlite"
)

// A second store of the same text into the same thread merges into the
// first entry instead of adding another.
func Example() {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: ":memory:"})
	if err != nil {
		panic(err)
	}
	defer st.Close()
	w := write.New(st, nil, write.Options{AuthorGroupGrants: true})
	p := write.Principal{ID: "alice", Groups: []string{"team"}}
	for range 2 {
		s, err := request.ValidateStore(request.StoreInput{ThreadID: "t", Source: "user", Text: "hello"}, request.Options{})
		if err != nil {
			panic(err)
		}
		out, err := w.Store(ctx, p, s)
		if err != nil {
			panic(err)
		}
		fmt.Println(out.Message, out.Merged)
	}
	// Output:
	// Context stored false
	// Context updated true
}
