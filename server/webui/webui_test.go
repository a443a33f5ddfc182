package webui_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/model/builtin"
	_ "github.com/contextd/contextd/persist/sqlite"
	"github.com/contextd/contextd/server"
	"github.com/contextd/contextd/server/auth"
	"github.com/contextd/contextd/server/webui"
)

// tokens are the test authenticator's callers.
var tokens = map[string]string{"tok-alice": "alice", "tok-bob": "bob"}

func testAuth(_ context.Context, token string) (contextd.Principal, error) {
	if id, ok := tokens[token]; ok {
		return contextd.Principal{ID: id}, nil
	}
	return contextd.Principal{}, errors.New("invalid token")
}

type uiEnv struct {
	t   *testing.T
	url string
	eng *contextd.Engine
}

func openEngine(t testing.TB) *contextd.Engine {
	t.Helper()
	eng, err := contextd.Open(context.Background(), contextd.Config{DBPath: filepath.Join(t.TempDir(), "ctx.db"),
		FTS: contextd.FTSConfig{Progress: io.Discard}, Embedding: contextd.EmbeddingConfig{Embedder: &builtin.Embedder{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return eng
}

func newUIEnv(t *testing.T, o webui.Options) *uiEnv {
	t.Helper()
	eng := openEngine(t)
	if o.Auth == nil && o.OneTimeToken == "" {
		o.Auth = testAuth
	}
	ui, err := webui.New(eng, o)
	if err != nil {
		t.Fatal(err)
	}
	return &uiEnv{t: t, url: serve(t, ui), eng: eng}
}

func serve(t *testing.T, h http.Handler) string {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

func itoa(n int) string { return strconv.Itoa(n) }

// browser is one cookie jar that does not follow redirects.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
	csrf string
}

func (e *uiEnv) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: e.t, base: e.url, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (b *browser) do(method, path string, form url.Values, hdr map[string]string) (int, http.Header, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if m := csrfField.FindSubmatch(raw); m != nil {
		b.csrf = string(m[1])
	}
	return resp.StatusCode, resp.Header, string(raw)
}

func (b *browser) get(path string) (int, string) {
	b.t.Helper()
	code, _, body := b.do("GET", path, nil, nil)
	return code, body
}

func (b *browser) post(path string, form url.Values) (int, http.Header, string) {
	b.t.Helper()
	return b.do("POST", path, form, nil)
}

// login logs in with token through the login form.
func (b *browser) login(token string) {
	b.t.Helper()
	if code, _ := b.get("/ui/login"); code != 200 {
		b.t.Fatalf("GET /ui/login: %d", code)
	}
	code, h, body := b.post("/ui/login", url.Values{"csrf": {b.csrf}, "token": {token}})
	if code != http.StatusSeeOther || h.Get("Location") != "/ui/" {
		b.t.Fatalf("login %s: %d %s %s", token, code, h.Get("Location"), body)
	}
	if code, _ := b.get("/ui/"); code != 200 { // picks up the session's CSRF token
		b.t.Fatalf("GET /ui/ after login: %d", code)
	}
}

func as(id string) context.Context {
	return contextd.WithPrincipal(context.Background(), contextd.Principal{ID: id})
}

func store(t *testing.T, eng *contextd.Engine, who, thread, text string) string {
	t.Helper()
	r, err := eng.Store(as(who), contextd.StoreRequest{ThreadID: thread, Source: "agent", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return r.ContextID
}

func TestUnauthenticated(t *testing.T) {
	env := newUIEnv(t, webui.Options{})
	b := env.browser()
	id := store(t, env.eng, "alice", "t", "hello")
	for _, p := range []string{"/ui/", "/ui/entry/" + id, "/ui/search?q=hello", "/ui/knowledge", "/ui/stats"} {
		code, h, _ := b.do("GET", p, nil, nil)
		if code != http.StatusSeeOther || h.Get("Location") != "/ui/login" {
			t.Errorf("GET %s without a session: %d %q, want 303 to the login page", p, code, h.Get("Location"))
		}
	}
	if code, _, _ := b.do("GET", "/ui/knowledge/x/files.json", nil, map[string]string{"Accept": "application/json"}); code != 401 {
		t.Errorf("script GET without a session: %d, want 401", code)
	}
	if code, _, _ := b.post("/ui/entry/"+id+"/delete", url.Values{"csrf": {"x"}}); code != 401 {
		t.Errorf("POST without a session: %d, want 401", code)
	}
	// A forged session cookie is no session.
	u, _ := url.Parse(env.url + "/ui/")
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: "contextd_ui", Value: webui.NewToken(), Path: "/ui"}})
	if code, _, _ := b.do("GET", "/ui/", nil, nil); code != http.StatusSeeOther {
		t.Errorf("GET with a made-up session id: %d, want 303", code)
	}
	// A wrong token does not log in.
	b.get("/ui/login")
	if code, _, _ := b.post("/ui/login", url.Values{"csrf": {b.csrf}, "token": {"tok-mallory"}}); code != 401 {
		t.Errorf("login with a wrong token: %d, want 401", code)
	}
	if ents, _ := env.eng.Get(as("alice"), contextd.GetRequest{ContextIDs: []string{id}}); len(ents) != 1 {
		t.Fatal("the entry must survive the refused requests")
	}
}

func TestCSRF(t *testing.T) {
	env := newUIEnv(t, webui.Options{})
	b := env.browser()
	// The login form needs its own token: missing or wrong is refused.
	b.get("/ui/login")
	for _, tok := range []string{"", "wrong"} {
		if code, _, _ := b.post("/ui/login", url.Values{"csrf": {tok}, "token": {"tok-alice"}}); code != 403 {
			t.Errorf("login with CSRF %q: %d, want 403", tok, code)
		}
	}
	b.login("tok-alice")
	id := store(t, env.eng, "alice", "t", "keep me")
	good := b.csrf
	for _, tok := range []string{"", "wrong", webui.NewToken()} {
		form := url.Values{"text": {"changed"}}
		if tok != "" {
			form.Set("csrf", tok)
		}
		for _, p := range []string{"/ui/entry/" + id + "/edit", "/ui/entry/" + id + "/delete", "/ui/knowledge", "/ui/logout"} {
			if code, _, _ := b.post(p, form); code != 403 {
				t.Errorf("POST %s with CSRF %q: %d, want 403", p, tok, code)
			}
		}
		if code, _, _ := b.do("POST", "/ui/knowledge/c/upload?name=a.txt", nil, map[string]string{"X-CSRF-Token": tok + "x"}); code != 403 {
			t.Errorf("upload with a wrong CSRF header: %d, want 403", code)
		}
	}
	ents, _ := env.eng.Get(as("alice"), contextd.GetRequest{ContextIDs: []string{id}})
	if len(ents) != 1 || ents[0].TextContent != "keep me" {
		t.Fatalf("refused requests changed the entry: %+v", ents)
	}
	// Another session's token is wrong too.
	other := env.browser()
	other.login("tok-alice")
	if code, _, _ := b.post("/ui/entry/"+id+"/edit", url.Values{"csrf": {other.csrf}, "text": {"x"}}); code != 403 {
		t.Errorf("another session's CSRF token: %d, want 403", code)
	}
	if code, h, _ := b.post("/ui/entry/"+id+"/edit", url.Values{"csrf": {good}, "text": {"edited"}, "tags": {"a, b"}}); code != 303 {
		t.Fatalf("edit with the right token: %d %v", code, h)
	}
	ents, _ = env.eng.Get(as("alice"), contextd.GetRequest{ContextIDs: []string{id}})
	if ents[0].TextContent != "edited" || strings.Join(ents[0].Tags, ",") != "a,b" {
		t.Fatalf("edit not applied: %+v", ents[0])
	}
	// The tools' validation applies: an unknown visibility is refused with their message.
	code, _, body := b.post("/ui/entry/"+id+"/edit", url.Values{"csrf": {good}, "text": {"x"}, "visibility": {"everyone"}})
	if code != 400 || !strings.Contains(body, "visibility") {
		t.Errorf("invalid visibility: %d, want 400 with the tool's message", code)
	}
	if code, _, _ := b.post("/ui/entry/"+id+"/delete", url.Values{"csrf": {good}}); code != 303 {
		t.Fatalf("delete: %d", code)
	}
	if ents, _ = env.eng.Get(as("alice"), contextd.GetRequest{ContextIDs: []string{id}}); len(ents) != 0 {
		t.Fatal("delete not applied")
	}
}

func TestHeadersAndCookie(t *testing.T) {
	env := newUIEnv(t, webui.Options{})
	b := env.browser()
	b.get("/ui/login")
	_, h, _ := b.post("/ui/login", url.Values{"csrf": {b.csrf}, "token": {"tok-alice"}})
	sc := strings.Join(h.Values("Set-Cookie"), "\n")
	session := regexp.MustCompile(`(?m)^contextd_ui=[^;\n]+;.*$`).FindString(sc)
	for _, want := range []string{"HttpOnly", "SameSite=Strict", "Path=/ui"} {
		if session == "" || !strings.Contains(session, want) {
			t.Errorf("session cookie %q lacks %s", sc, want)
		}
	}
	for _, p := range []string{"/ui/", "/ui/login", "/ui/static/app.js", "/ui/nowhere"} {
		_, h, _ := b.do("GET", p, nil, nil)
		c := h.Get("Content-Security-Policy")
		if !strings.Contains(c, "script-src 'self'") || !strings.Contains(c, "frame-ancestors 'none'") ||
			strings.Contains(c, "unsafe-inline") || strings.Contains(c, "unsafe-eval") {
			t.Errorf("GET %s: CSP %q", p, c)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", p)
		}
	}
	// The script is revalidated by its ETag: 304 the second time.
	_, h, _ = b.do("GET", "/ui/static/app.js", nil, nil)
	if tag := h.Get("ETag"); tag == "" {
		t.Error("app.js has no ETag")
	} else if code, _, _ := b.do("GET", "/ui/static/app.js", nil, map[string]string{"If-None-Match": tag}); code != http.StatusNotModified {
		t.Errorf("app.js with its ETag: %d, want 304", code)
	}
	// No page carries inline script or an inline event handler.
	_, body := b.get("/ui/login")
	if regexp.MustCompile(`<script>|<script [^>]*>[^<]|\son[a-z]+=`).MatchString(body) {
		t.Errorf("inline script in the login page")
	}
	// A request over loopback naming another host is refused (DNS rebinding).
	req, _ := http.NewRequest("GET", env.url+"/ui/login", nil)
	req.Host = "evil.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("loopback request for Host evil.example: %d, want 403", resp.StatusCode)
	}
}

// TestServedByHTTPTransport checks the mount on the HTTP transport: the
// login page takes the simple_token provider's token, a wrong one is
// refused, and DisableUI leaves /ui unserved.
func TestServedByHTTPTransport(t *testing.T) {
	eng := openEngine(t)
	srv, err := server.New(eng, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := auth.New(auth.Config{Provider: "simple_token", Token: "s3cret"}, server.DefaultPrincipal)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(server.HTTPOptions{Auth: a}))
	t.Cleanup(ts.Close)
	env := &uiEnv{t: t, url: ts.URL, eng: eng}
	b := env.browser()
	if code, h, _ := b.do("GET", "/ui", nil, nil); code != http.StatusSeeOther || h.Get("Location") != "/ui/" {
		t.Fatalf("GET /ui: %d %q", code, h.Get("Location"))
	}
	b.get("/ui/login")
	if code, _, _ := b.post("/ui/login", url.Values{"csrf": {b.csrf}, "token": {"wrong"}}); code != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d, want 401", code)
	}
	b.login("s3cret")
	if _, body := b.get("/ui/stats"); !strings.Contains(body, server.DefaultPrincipal) {
		t.Fatalf("the token's principal %s is not shown as logged in", server.DefaultPrincipal)
	}
	off := httptest.NewServer(srv.HTTPHandler(server.HTTPOptions{Auth: a, DisableUI: true}))
	t.Cleanup(off.Close)
	resp, err := http.Get(off.URL + "/ui/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("DisableUI: GET /ui/login %d, want 404", resp.StatusCode)
	}
}
