// Package write owns the write path of the engine: deduplication,
// version-checked updates with conflict retries, batch transactions,
// deletes and grants, each change in one SQL transaction. It takes
// requests the caller has already validated (package internal/request),
// runs model generation before the transaction (package
// internal/generate), decides access inside the transaction, and returns
// typed results whose messages are the reference texts. Every error for
// caller input is an *errors.Error carrying the reference sentinel and
// message; other errors are wrapped with the operation's name.
//
//	w := write.New(st, gen, write.Options{AuthorGroupGrants: true})
//	p := write.Principal{ID: "alice", Groups: []string{"team"}}
//	s, err := request.ValidateStore(request.StoreInput{ThreadID: "t", Source: "user", Text: "hello"}, request.Options{})
//	if err != nil { ... }
//	out, err := w.Store(ctx, p, s)
//	// out.ID is the new entry, or the caller's latest identical entry of
//	// the thread when deduplication merged the request into it
//	// (out.Merged, out.Message == "Context updated").
//
// It depends on persist, errors and the internal request, generate, ids
// and pyfmt packages, never on the root package.
package write
