package server_test

// Streamable HTTP with authentication, end to end over real loopback HTTP:
// T-130, the sharing flows of the API reference with JWTs for three
// principals, and the token refusals (R-501, R-502, C.1).

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/lab/loadtest"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlite"
	"github.com/contextd/contextd/server"
	"github.com/contextd/contextd/server/auth"
)

const (
	testIssuer   = "https://issuer.test"
	testAudience = "contextd"
)

// signer mints RS256 tokens with one key.
type signer struct {
	kid string
	key *rsa.PrivateKey
}

func newSigner(t testing.TB, kid string) *signer {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &signer{kid: kid, key: k}
}

// claims are valid defaults for sub: one hour, our issuer and audience.
func claimsFor(sub string, groups ...string) jwt.MapClaims {
	c := jwt.MapClaims{"sub": sub, "iss": testIssuer, "aud": testAudience,
		"exp": time.Now().Add(time.Hour).Unix(), "nbf": time.Now().Add(-time.Minute).Unix()}
	if groups != nil {
		c["groups"] = groups
	}
	return c
}

func (s *signer) token(t testing.TB, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	tok.Header["kid"] = s.kid
	out, err := tok.SignedString(s.key)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (s *signer) jwk() map[string]string {
	return map[string]string{
		"kty": "RSA", "kid": s.kid, "alg": "RS256", "use": "sig",
		"n": base64.RawURLEncoding.EncodeToString(s.key.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(s.key.E)).Bytes()),
	}
}

func (s *signer) publicPEM(t testing.TB) string {
	der, err := x509.MarshalPKIXPublicKey(&s.key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// jwksServer serves the public keys of its signers and counts fetches.
type jwksServer struct {
	*httptest.Server
	mu      sync.Mutex
	signers []*signer
	fetches atomic.Int64
	gate    chan struct{} // when non-nil, each fetch waits for a receive
}

func newJWKSServer(t testing.TB, signers ...*signer) *jwksServer {
	j := &jwksServer{signers: signers}
	j.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		j.fetches.Add(1)
		j.mu.Lock()
		gate := j.gate
		var keys []map[string]string
		for _, s := range j.signers {
			keys = append(keys, s.jwk())
		}
		j.mu.Unlock()
		if gate != nil {
			<-gate
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": keys})
	}))
	t.Cleanup(j.Close)
	return j
}

func (j *jwksServer) rotate(s ...*signer) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.signers = s
}

// httpEnv is one engine served over real HTTP.
type httpEnv struct {
	url string
	eng *contextd.Engine
}

func newHTTPEnv(t testing.TB, ac auth.Config, cfg contextd.Config) *httpEnv {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(t.TempDir(), "ctx.db")})
	if err != nil {
		t.Fatal(err)
	}
	return newHTTPEnvStore(t, st, ac, cfg)
}

// newHTTPEnvStore is newHTTPEnv on st, which it closes when t ends.
func newHTTPEnvStore(t testing.TB, st persist.Store, ac auth.Config, cfg contextd.Config) *httpEnv {
	t.Helper()
	cfg.Store = st
	eng, err := contextd.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(eng, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := auth.New(ac, server.DefaultPrincipal)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(server.HTTPOptions{Auth: a}))
	t.Cleanup(func() { ts.Close(); _ = eng.Close(); _ = st.Close() })
	return &httpEnv{url: ts.URL, eng: eng}
}

// httpClient is one connected MCP client over HTTP with a fixed token.
type httpClient struct {
	t testing.TB
	c *loadtest.Client
}

func dialMCP(t testing.TB, url, token string) (*httpClient, error) {
	c, err := loadtest.Dial(context.Background(), url, token)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = c.Close() })
	return &httpClient{t: t, c: c}, nil
}

func mustDial(t testing.TB, url, token string) *httpClient {
	t.Helper()
	c, err := dialMCP(t, url, token)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return c
}

// call runs one tool call; errText is the tool error message, or "".
func (h *httpClient) call(tool string, args M) (M, string, error) {
	return h.c.Call(context.Background(), tool, args)
}

func (h *httpClient) ok(tool string, args M) M {
	h.t.Helper()
	m, msg, err := h.call(tool, args)
	if err != nil || msg != "" {
		h.t.Fatalf("%s %s: want success, got err=%v msg=%q", tool, mustJSON(args), err, msg)
	}
	return m
}

func (h *httpClient) fails(tool string, args M) string {
	h.t.Helper()
	_, msg, err := h.call(tool, args)
	if err != nil || msg == "" {
		h.t.Fatalf("%s %s: want a tool error, got err=%v", tool, mustJSON(args), err)
	}
	return msg
}

func (h *httpClient) readable(id string) bool {
	h.t.Helper()
	return len(h.ok("get_context_by_ids", M{"context_ids": []string{id}})["result"].([]any)) == 1
}

func TestHTTPHealthAndSimpleToken(t *testing.T) {
	env := newHTTPEnv(t, auth.Config{Provider: "simple_token", Token: "s3cret"}, contextd.Config{})
	resp, err := http.Get(env.url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"status":"ok"}` {
		t.Fatalf("GET /health: %d %s", resp.StatusCode, body)
	}
	for _, tok := range []string{"", "wrong", "s3cret2", "s3cre"} {
		if _, err := dialMCP(t, env.url, tok); err == nil {
			t.Fatalf("token %q: connected, want 401", tok)
		}
		if code, challenge := rawPost(t, env.url, "Bearer "+tok); code != 401 || !strings.HasPrefix(challenge, "Bearer") {
			t.Fatalf("token %q: status %d, WWW-Authenticate %q", tok, code, challenge)
		}
	}
	c := mustDial(t, env.url, "s3cret")
	id := c.ok("store_context", M{"thread_id": "t130", "source": "user", "text": "over http"})["context_id"].(string)
	e := c.ok("get_context_by_ids", M{"context_ids": []string{id}})["result"].([]any)[0].(M)
	if e["is_owner"] != true {
		t.Fatalf("the token caller must be the default principal and own its entry: %v", e)
	}
}

// rawPost sends an initialize request with the given Authorization header
// and returns the status and the WWW-Authenticate challenge.
func rawPost(t testing.TB, url, authorization string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, _ := http.NewRequest("POST", url+server.MCPPath, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

func jwtAuth(jwksURL string) auth.Config {
	return auth.Config{Provider: "jwt", JWT: auth.JWTConfig{
		JWKSURI: jwksURL + "/jwks.json", Issuer: testIssuer, Audience: testAudience, Algorithm: "RS256",
	}}
}

func TestHTTPSharingWithJWT(t *testing.T) {
	sg := newSigner(t, "k1")
	jwks := newJWKSServer(t, sg)
	env := newHTTPEnv(t, jwtAuth(jwks.URL), contextd.Config{PublishRole: "publisher"})
	alice := mustDial(t, env.url, sg.token(t, func() jwt.MapClaims {
		c := claimsFor("alice")
		c["roles"] = []string{"publisher"}
		return c
	}()))
	bob := mustDial(t, env.url, sg.token(t, claimsFor("bob", "team")))
	carol := mustDial(t, env.url, sg.token(t, claimsFor("carol")))

	id := alice.ok("store_context", M{"thread_id": "flows", "source": "user", "text": "alice's plan"})["context_id"].(string)
	for name, c := range map[string]*httpClient{"bob": bob, "carol": carol} {
		if c.readable(id) {
			t.Fatalf("%s reads alice's private entry", name)
		}
		wantEqual(t, name+" share", c.fails("share_context", M{"context_id": id, "principal_type": "user", "principal_id": "x", "permission": "read"}),
			"Context entry with ID "+id+" not found")
	}
	// A group read grant reaches bob (in team), not carol.
	res := alice.ok("share_context", M{"context_id": id[:10], "principal_type": "group", "principal_id": "team", "permission": "read"})
	wantEqual(t, "created", res["created"], any(true))
	wantEqual(t, "bob reads", bob.readable(id), true)
	wantEqual(t, "carol reads", carol.readable(id), false)
	wantEqual(t, "bob edits with read", bob.fails("update_context", M{"context_id": id, "text": "bob"}),
		"Not authorized to modify context entry with ID "+id)
	// A write grant lets bob edit but not publish, delete or share.
	alice.ok("share_context", M{"context_id": id, "principal_type": "user", "principal_id": "bob", "permission": "write"})
	bob.ok("update_context", M{"context_id": id, "text": "bob's edit", "tags": []string{"edited"}})
	wantEqual(t, "bob publishes", bob.fails("update_context", M{"context_id": id, "visibility": "public"}),
		"Only the owner may change the visibility of context "+id)
	wantEqual(t, "bob deletes", bob.fails("delete_context", M{"context_ids": []string{id}}), "Not authorized to delete context entries: "+id)
	wantEqual(t, "bob shares", bob.fails("share_context", M{"context_id": id, "principal_type": "user", "principal_id": "carol", "permission": "read"}),
		"Not authorized to share context entry with ID "+id)
	wantEqual(t, "bob unshares", bob.fails("unshare_context", M{"context_id": id, "principal_type": "user", "principal_id": "bob", "permission": "write"}),
		"Not authorized to unshare context entry with ID "+id)
	wantEqual(t, "bob lists", bob.fails("list_context_grants", M{"context_id": id}),
		"Not authorized to list the grants of context entry with ID "+id)
	wantEqual(t, "alice self-share", alice.fails("share_context", M{"context_id": id, "principal_type": "user", "principal_id": "alice", "permission": "read"}),
		"Cannot share context entry with ID "+id+" with its owner")
	got := alice.ok("list_context_grants", M{"context_id": id})
	wantEqual(t, "count", got["count"], any(float64(2)))
	g0 := got["grants"].([]any)[0].(M)
	wantEqual(t, "first grant", fmt.Sprint(g0["principal_type"], " ", g0["principal_id"], " ", g0["permission"], " ", g0["granted_by"]), "group team read alice")
	e := alice.ok("get_context_by_ids", M{"context_ids": []string{id}})["result"].([]any)[0].(M)
	wantEqual(t, "text after bob's edit", e["text_content"], any("bob's edit"))
	// Removing the user write grant leaves bob's group read.
	res = alice.ok("unshare_context", M{"context_id": id, "principal_type": "user", "principal_id": "bob", "permission": "write"})
	wantEqual(t, "removed", res["removed"], any(true))
	wantEqualJSON(t, "remaining", res["remaining_permissions"], `[]`)
	wantEqual(t, "bob still reads through team", bob.readable(id), true)
	wantEqual(t, "bob edits again", bob.fails("update_context", M{"context_id": id, "text": "no"}),
		"Not authorized to modify context entry with ID "+id)
	// Publishing needs the role: alice has it, bob (not owner) never could.
	alice.ok("update_context", M{"context_id": id, "visibility": "public"})
	wantEqual(t, "carol reads public", carol.readable(id), true)
	wantEqual(t, "carol shares public", carol.fails("share_context", M{"context_id": id, "principal_type": "user", "principal_id": "dave", "permission": "read"}),
		"Not authorized to share context entry with ID "+id)
	cid := carol.ok("store_context", M{"thread_id": "c", "source": "user", "text": "carol's"})["context_id"].(string)
	msg := carol.fails("update_context", M{"context_id": cid, "visibility": "public"})
	wantPrefix(t, "carol publishes without the role", msg, "Setting visibility 'public' requires the 'publisher' role")
	alice.ok("delete_context", M{"context_ids": []string{id}})
	wantEqual(t, "gone for bob", bob.readable(id), false)
	if n := jwks.fetches.Load(); n != 1 {
		t.Fatalf("JWKS fetched %d times for one key set, want 1 (cached)", n)
	}
}

func TestHTTPTokenRefusals(t *testing.T) {
	sg := newSigner(t, "k1")
	other := newSigner(t, "k1") // same kid, different key: a bad signature
	jwks := newJWKSServer(t, sg)
	env := newHTTPEnv(t, jwtAuth(jwks.URL), contextd.Config{})
	hs := jwt.NewWithClaims(jwt.SigningMethodHS256, claimsFor("mallory"))
	hs.Header["kid"] = "k1"
	// The classic confusion attack: HMAC keyed with the RSA public key.
	hsTok, _ := hs.SignedString([]byte(sg.publicPEM(t)))
	noneTok, _ := jwt.NewWithClaims(jwt.SigningMethodNone, claimsFor("mallory")).SignedString(jwt.UnsafeAllowNoneSignatureType)
	with := func(mod func(jwt.MapClaims)) string {
		c := claimsFor("mallory")
		mod(c)
		return sg.token(t, c)
	}
	cases := []struct{ name, header string }{
		{"missing", ""},
		{"expired", "Bearer " + with(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Minute).Unix() })},
		{"no exp", "Bearer " + with(func(c jwt.MapClaims) { delete(c, "exp") })},
		{"not yet valid", "Bearer " + with(func(c jwt.MapClaims) { c["nbf"] = time.Now().Add(time.Hour).Unix() })},
		{"wrong issuer", "Bearer " + with(func(c jwt.MapClaims) { c["iss"] = "https://evil.test" })},
		{"wrong audience", "Bearer " + with(func(c jwt.MapClaims) { c["aud"] = "someone-else" })},
		{"no sub", "Bearer " + with(func(c jwt.MapClaims) { delete(c, "sub") })},
		{"alg none", "Bearer " + noneTok},
		{"HS256 with the RS256 public key", "Bearer " + hsTok},
		{"bad signature", "Bearer " + other.token(t, claimsFor("mallory"))},
		{"unknown kid", "Bearer " + (&signer{kid: "k9", key: other.key}).token(t, claimsFor("mallory"))},
		{"garbage", "Bearer not.a.jwt"},
		{"basic scheme", "Basic bWFsbG9yeTpwdw=="},
		{"empty bearer", "Bearer "},
		{"truncated", "Bearer " + sg.token(t, claimsFor("mallory"))[:40]},
	}
	for _, tc := range cases {
		code, challenge := rawPost(t, env.url, tc.header)
		if code != http.StatusUnauthorized || !strings.HasPrefix(challenge, `Bearer realm="mcp"`) {
			t.Fatalf("%s: status %d, WWW-Authenticate %q; want 401 with a Bearer challenge", tc.name, code, challenge)
		}
	}
	// The server keeps serving valid tokens, and nothing reached a tool.
	c := mustDial(t, env.url, sg.token(t, claimsFor("alice")))
	st := c.ok("get_statistics", nil)
	wantEqual(t, "entries", st["total_entries"], any(float64(0)))
	// A sub-less token is refused by default ("no sub" above); with
	// MCP_AUTH_JWT_CLIENT_ID_FALLBACK it names its client_id.
	ac := jwtAuth(jwks.URL)
	ac.JWT.ClientIDFallback = true
	fb := newHTTPEnv(t, ac, contextd.Config{})
	cl := claimsFor("")
	delete(cl, "sub")
	cl["client_id"] = "svc-1"
	if code, _ := rawPost(t, env.url, "Bearer "+sg.token(t, cl)); code != http.StatusUnauthorized {
		t.Fatalf("sub-less token without the fallback: status %d, want 401", code)
	}
	svc := mustDial(t, fb.url, sg.token(t, cl))
	id := svc.ok("store_context", M{"thread_id": "svc", "source": "agent", "text": "x"})["context_id"].(string)
	alice := mustDial(t, fb.url, sg.token(t, claimsFor("alice")))
	wantEqual(t, "svc owns", alice.readable(id), false)
}

func TestHTTPJWKSRotation(t *testing.T) {
	k1, k2 := newSigner(t, "k1"), newSigner(t, "k2")
	jwks := newJWKSServer(t, k1)
	auth := jwtAuth(jwks.URL)
	auth.JWT.JWKSRefreshInterval = time.Nanosecond
	env := newHTTPEnv(t, auth, contextd.Config{})
	mustDial(t, env.url, k1.token(t, claimsFor("alice"))).ok("get_statistics", nil)
	before := jwks.fetches.Load()
	jwks.rotate(k2)
	c := mustDial(t, env.url, k2.token(t, claimsFor("alice")))
	c.ok("get_statistics", nil)
	if jwks.fetches.Load() == before {
		t.Fatalf("an unknown kid did not refresh the JWKS")
	}
	if code, _ := rawPost(t, env.url, "Bearer "+k1.token(t, claimsFor("alice"))); code != 401 {
		t.Fatalf("a retired key still verifies: status %d", code)
	}
}

// TestHTTPGracefulShutdown cancels the serve context while a request is in
// flight (held in authentication by a slow JWKS fetch): the request still
// completes, new connections are refused, and the serve call returns nil.
func TestHTTPGracefulShutdown(t *testing.T) {
	sg := newSigner(t, "k1")
	jwks := newJWKSServer(t, sg)
	jwks.gate = make(chan struct{})
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(t.TempDir(), "ctx.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng, _ := contextd.Open(context.Background(), contextd.Config{Store: st})
	srv, _ := server.New(eng, server.Options{})
	a, err := auth.New(jwtAuth(jwks.URL), server.DefaultPrincipal)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- srv.ServeHTTPListener(ctx, ln, server.HTTPOptions{Auth: a, ShutdownTimeout: 20 * time.Second})
	}()

	inflight := make(chan int, 1)
	tok := sg.token(t, claimsFor("alice"))
	go func() {
		// Not rawPost: t.Fatal must not run off the test goroutine.
		req, _ := http.NewRequest("POST", url+server.MCPPath, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			inflight <- -1
			return
		}
		resp.Body.Close()
		inflight <- resp.StatusCode
	}()
	testtier.WaitFor(t, 10*time.Second, "the in-flight request to reach the key fetch", func() bool { return jwks.fetches.Load() > 0 })
	cancel()
	// Shutdown closes the listener at once; a dial is refused from then on
	// (the request above still holds its connection).
	if !testtier.Until(10*time.Second, func() bool {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			return true
		}
		c.Close()
		return false
	}) {
		t.Fatalf("new connections are still accepted 10 s into the shutdown")
	}
	close(jwks.gate)
	if code := <-inflight; code != http.StatusOK {
		t.Fatalf("in-flight request: status %d, want 200", code)
	}
	if err := <-served; err != nil {
		t.Fatalf("ServeHTTPListener: %v", err)
	}
}

// TestHTTPModes: FASTMCP_JSON_RESPONSE refuses the GET event stream, and
// FASTMCP_STATELESS_HTTP=false hands out session ids; tools work in both.
func TestHTTPModes(t *testing.T) {
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(t.TempDir(), "ctx.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng, _ := contextd.Open(context.Background(), contextd.Config{Store: st})
	srv, _ := server.New(eng, server.Options{})
	for _, o := range []server.HTTPOptions{{JSONResponse: true}, {Stateful: true}, {}} {
		ts := httptest.NewServer(srv.HTTPHandler(o))
		req, _ := http.NewRequest("GET", ts.URL+server.MCPPath, nil)
		req.Header.Set("Accept", "text/event-stream")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		resp, err := http.DefaultClient.Do(req.WithContext(ctx))
		code := 0
		if err == nil {
			code = resp.StatusCode
			resp.Body.Close()
		}
		cancel()
		if o.JSONResponse && code != http.StatusMethodNotAllowed {
			t.Fatalf("JSONResponse: GET /mcp status %d, want 405", code)
		}
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
		post, _ := http.NewRequest("POST", ts.URL+server.MCPPath, strings.NewReader(body))
		post.Header.Set("Content-Type", "application/json")
		post.Header.Set("Accept", "application/json, text/event-stream")
		resp, err = http.DefaultClient.Do(post)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if sid := resp.Header.Get("Mcp-Session-Id"); (sid != "") != o.Stateful {
			t.Fatalf("%+v: Mcp-Session-Id %q", o, sid)
		}
		c := mustDial(t, ts.URL, "")
		id := c.ok("store_context", M{"thread_id": "modes", "source": "user", "text": fmt.Sprint(o)})["context_id"].(string)
		if !c.readable(id) {
			t.Fatalf("%+v: stored entry not readable", o)
		}
		ts.Close()
	}
}
