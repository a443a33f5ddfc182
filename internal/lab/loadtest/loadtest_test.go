package loadtest

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/server"
	"github.com/contextd/contextd/server/auth"

	_ "github.com/contextd/contextd/persist/sqlite"
)

// serve runs a real engine on a SQLite file behind the streamable HTTP
// handler with JWT authentication by iss, until t ends.
func serve(t *testing.T) (string, *Issuer) {
	t.Helper()
	iss, err := NewIssuer("https://issuer.test", "contextd")
	if err != nil {
		t.Fatal(err)
	}
	key, err := iss.PublicPEM()
	if err != nil {
		t.Fatal(err)
	}
	eng, err := contextd.Open(context.Background(), contextd.Config{DBPath: filepath.Join(t.TempDir(), "ctx.db")})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(eng, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := auth.New(auth.Config{Provider: "jwt", JWT: auth.JWTConfig{PublicKey: key, Issuer: iss.Name, Audience: iss.Audience}}, server.DefaultPrincipal)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(server.HTTPOptions{Auth: a}))
	t.Cleanup(func() { ts.Close(); _ = eng.Close() })
	return ts.URL, iss
}

func dialAs(t *testing.T, url string, iss *Issuer, sub string) *Client {
	t.Helper()
	token, err := iss.Token(sub, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(context.Background(), url, token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestRunCleanLoad(t *testing.T) {
	url, iss := serve(t)
	res, err := Run(context.Background(), Options{URL: url, Clients: 3, Duration: time.Second, Seed: 1,
		Token: func(i int) (string, error) { return iss.Token(string(rune('a'+i)), nil) }})
	if err != nil {
		t.Fatal(err)
	}
	if msg := res.Failed(); msg != "" {
		t.Fatal(msg)
	}
	if res.Requests == 0 || res.Writes == 0 || res.Verified == 0 || res.Tools[len(res.Tools)-1].Tool != "all" {
		t.Fatalf("result: %+v", res)
	}
}

func TestRunBadOptions(t *testing.T) {
	if _, err := Run(context.Background(), Options{}); err != ErrNoURL {
		t.Fatalf("err = %v, want ErrNoURL", err)
	}
	if _, err := Run(context.Background(), Options{URL: "http://127.0.0.1:1", Clients: 2}); err != ErrSharedPrincipal {
		t.Fatalf("two clients without tokens: err = %v, want ErrSharedPrincipal", err)
	}
}

// TestVerifyCountsLostWrites: the final verification counts, as lost, an
// acknowledged id the server does not have, an entry whose text is not
// the last one written, and a deleted entry that still reads back.
func TestVerifyCountsLostWrites(t *testing.T) {
	url, iss := serve(t)
	w := newWorker(0, dialAs(t, url, iss, "alice"), 1)
	ctx := context.Background()
	for n := range 4 {
		w.step(ctx, 0, n) // store
	}
	if len(w.ids) != 4 || w.writes != 4 {
		t.Fatalf("%d stores acknowledged, want 4 (%v)", len(w.ids), w.samp)
	}
	never := "0123456789abcdef0123456789abcdef"
	w.ids, w.texts[never] = append(w.ids, never), "never stored"
	w.texts[w.ids[0]] = "a text never written"
	kept := w.ids[1]
	w.ids = append(w.ids[:1], w.ids[2:]...)
	delete(w.texts, kept)
	w.gone = append(w.gone, kept)
	w.verify(ctx)
	if w.lost != 3 || w.verified != 3 {
		t.Fatalf("verify: %d lost, %d verified; want 3 and 3 (%v)", w.lost, w.verified, w.samp)
	}
}

// TestOwnedCountsForeignResults: an id in a result that the client did
// not write counts as foreign (here: one it forgot it wrote).
func TestOwnedCountsForeignResults(t *testing.T) {
	url, iss := serve(t)
	w := newWorker(0, dialAs(t, url, iss, "bob"), 2)
	ctx := context.Background()
	w.step(ctx, 0, 0)
	w.step(ctx, 0, 1)
	delete(w.texts, w.ids[0])
	w.search(ctx, "search_context", M{"limit": 20})
	if w.foreign != 1 {
		t.Fatalf("%d foreign results, want 1 (%v)", w.foreign, w.samp)
	}
}

func TestResultMarkdown(t *testing.T) {
	r := summarize([]*worker{{lat: map[string][]time.Duration{"store_context": {time.Millisecond, 3 * time.Millisecond}}, fails: map[string]int{}}}, time.Second)
	if r.Requests != 2 || r.Tools[0].P50MS != 3 || r.Tools[0].MaxMS != 3 || r.PerS != 2 {
		t.Fatalf("summary: %+v", r)
	}
}
