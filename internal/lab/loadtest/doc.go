// Package loadtest owns the HTTP load of contextd: N concurrent MCP
// clients over streamable HTTP, each its own principal (a bearer token
// per client), mixing every kind of tool call for a fixed time, then
// verifying every acknowledged write and reporting latency percentiles
// per tool. `contextd bench --load` (internal/bench) runs it at full scale
// against a server it starts on loopback; the server package's
// TestHTTPLoad runs it at small scale in the test suite.
//
//	iss, _ := loadtest.NewIssuer("https://issuer.example", "contextd")
//	// ... serve with MCP_AUTH_PROVIDER=jwt and iss.PublicPEM() ...
//	res, err := loadtest.Run(ctx, loadtest.Options{
//		URL: "http://127.0.0.1:8000", Clients: 16, Duration: time.Minute,
//		Token: func(i int) (string, error) { return iss.Token(fmt.Sprintf("user%d", i), nil) },
//	})
//	if err == nil && res.Failed() == "" {
//		res.Markdown(os.Stdout)
//	}
//
// What counts as a failure: any transport or tool error, any write
// (store, update, delete) whose effect does not read back afterwards
// (lost), and any result naming an entry the client did not write
// (entries are private by default, so every id a client sees must be its
// own). The mix, in twentieths: store 6, update 2, delete 1, get 3,
// search_context 2 (one with a thread filter), fts, semantic, hybrid and
// grep 1 each, get_statistics 2; a client with nothing stored yet stores.
// Tools the server does not list (semantic search switched off) are
// replaced by search_context.
package loadtest
