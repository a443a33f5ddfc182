package webui_test

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/server/webui"
)

// TestStoredMarkupIsInert stores script and javascript: links in every
// field a page shows and checks that no page turns them into markup.
func TestStoredMarkupIsInert(t *testing.T) {
	env := newUIEnv(t, webui.Options{})
	const evil = `zebra <script>alert(1)</script> <a href="javascript:alert(2)">x</a> [y](javascript:alert(3)) <img src=x onerror=alert(4)>`
	r, err := env.eng.Store(as("alice"), contextd.StoreRequest{ThreadID: `th<script>alert(5)</script>`, Source: "agent", Text: evil,
		Tags: []string{`<b onmouseover=alert(6)>`}, Metadata: map[string]any{"link": "javascript:alert(7)", "<i>": "</pre><script>alert(8)</script>"}})
	if err != nil {
		t.Fatal(err)
	}
	b := env.browser()
	b.login("tok-alice")
	bad := regexp.MustCompile(`(?i)<script>alert|href="javascript:|src="javascript:|<img src=x|<b onmouseover|<a href="javascript`)
	for _, p := range []string{"/ui/", "/ui/entry/" + r.ContextID, "/ui/search?q=zebra&mode=fts", "/ui/search?q=alert&mode=fts&fts_mode=match",
		"/ui/search?q=zebra&mode=hybrid", "/ui/stats"} {
		code, body := b.get(p)
		if code != 200 {
			t.Errorf("GET %s: %d", p, code)
			continue
		}
		if m := bad.FindString(body); m != "" {
			t.Errorf("GET %s: stored markup came out live: %q", p, m)
		}
		if !strings.Contains(body, "&lt;script&gt;") {
			t.Errorf("GET %s: the stored <script> is not shown escaped", p)
		}
	}
	// The highlight keeps its own <mark> and escapes the rest.
	_, body := b.get("/ui/search?q=zebra&mode=fts")
	if !strings.Contains(body, "<mark>zebra</mark>") {
		t.Errorf("full-text search page lacks the highlight")
	}
}

// TestSecondPrincipalSeesNothing checks that bob sees none of alice's
// private entries or containers: not in lists, counts, searches or by id.
func TestSecondPrincipalSeesNothing(t *testing.T) {
	env := newUIEnv(t, webui.Options{})
	ids := []string{store(t, env.eng, "alice", "alice-thread", "quokka private note one"),
		store(t, env.eng, "alice", "alice-thread", "quokka private note two")}
	c, err := env.eng.CreateKnowledgeContainer(as("alice"), contextd.KnowledgeCreateRequest{Name: "alice-docs"})
	if err != nil {
		t.Fatal(err)
	}
	store(t, env.eng, "bob", "bob-thread", "wombat")
	alice, bob := env.browser(), env.browser()
	alice.login("tok-alice")
	bob.login("tok-bob")
	_, body := alice.get("/ui/")
	_, threads := alice.get("/ui/threads")
	if !strings.Contains(body, "quokka") || !strings.Contains(threads, "alice-thread") {
		t.Fatal("alice does not see her entries")
	}
	_, body = alice.get("/ui/knowledge")
	if !strings.Contains(body, "alice-docs") {
		t.Fatal("alice does not see her container")
	}
	for _, p := range []string{"/ui/", "/ui/threads", "/ui/search?q=quokka&mode=fts", "/ui/search?q=quokka&mode=hybrid", "/ui/search?q=quokka&mode=semantic",
		"/ui/stats", "/ui/knowledge", "/ui/?thread=alice-thread"} {
		_, body := bob.get(p)
		// The query and the thread filter are bob's own words, echoed in
		// the form; alice's texts, threads, ids and containers must not be.
		secrets := []string{"private note", "alice-docs", ids[0], ids[1], c.ID}
		if !strings.Contains(p, "alice-thread") {
			secrets = append(secrets, "alice-thread")
		}
		if !strings.Contains(p, "quokka") {
			secrets = append(secrets, "quokka")
		}
		for _, secret := range secrets {
			if strings.Contains(body, secret) {
				t.Errorf("bob's %s shows alice's %q", p, secret)
			}
		}
	}
	_, body = bob.get("/ui/stats")
	if m := regexp.MustCompile(`id="total-entries">(\d+)<`).FindStringSubmatch(body); m == nil || m[1] != "1" {
		t.Errorf("bob's entry count: %v, want 1", m)
	}
	for _, p := range []string{"/ui/entry/" + ids[0], "/ui/knowledge/" + c.ID, "/ui/knowledge/alice-docs/search?q=x"} {
		if code, body := bob.get(p); code != http.StatusNotFound || strings.Contains(body, "quokka") {
			t.Errorf("bob GET %s: %d, want 404", p, code)
		}
	}
	for _, p := range []string{"/ui/entry/" + ids[0] + "/delete", "/ui/knowledge/" + c.ID + "/delete"} {
		if code, _, _ := bob.post(p, url.Values{"csrf": {bob.csrf}}); code != http.StatusNotFound {
			t.Errorf("bob POST %s: %d, want 404", p, code)
		}
	}
	if ents, _ := env.eng.Get(as("alice"), contextd.GetRequest{ContextIDs: ids}); len(ents) != 2 {
		t.Fatal("bob deleted alice's entries")
	}
}

func TestOneTimeLink(t *testing.T) {
	tok := webui.NewToken()
	env := newUIEnv(t, webui.Options{OneTimeToken: tok, LocalPrincipal: "local"})
	store(t, env.eng, "local", "mine", "local note")
	b := env.browser()
	code, h, _ := b.do("GET", "/ui/login?once="+tok, nil, nil)
	if code != 303 || h.Get("Location") != "/ui/" {
		t.Fatalf("first use of the link: %d %q", code, h.Get("Location"))
	}
	if _, body := b.get("/ui/"); !strings.Contains(body, "local note") {
		t.Fatal("the link's session does not see the local principal's entries")
	}
	other := env.browser()
	if code, _, _ := other.do("GET", "/ui/login?once="+tok, nil, nil); code != 403 {
		t.Fatalf("second use of the link: %d, want 403", code)
	}
	if code, _, _ := other.do("GET", "/ui/", nil, nil); code != 303 {
		t.Fatal("a refused link must not log in")
	}
	// Without an authenticator the token form is off.
	other.get("/ui/login")
	if code, _, _ := other.post("/ui/login", url.Values{"csrf": {other.csrf}, "token": {""}}); code != 403 {
		t.Fatalf("token login under contextd ui: %d, want 403", code)
	}
}

func TestUploadAndDocument(t *testing.T) {
	env := newUIEnv(t, webui.Options{})
	b := env.browser()
	b.login("tok-alice")
	code, h, body := b.post("/ui/knowledge", url.Values{"csrf": {b.csrf}, "name": {"docs"}, "description": {"d"}})
	if code != 303 {
		t.Fatalf("create container: %d %s", code, body)
	}
	loc := h.Get("Location")
	up := func(name, content string) (int, string) {
		req, _ := http.NewRequest("POST", env.url+loc+"/upload?name="+url.QueryEscape(name), strings.NewReader(content))
		req.Header.Set("X-CSRF-Token", b.csrf)
		resp, err := b.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	if code, body := up("notes.md", "# Title\n\nplatypus facts"); code != 200 || !strings.Contains(body, "documentId") {
		t.Fatalf("upload: %d %s", code, body)
	}
	if code, body := up("bad/name.md", "x"); code != 400 || !strings.Contains(body, "error") {
		t.Fatalf("upload of an invalid name: %d %s, want 400 with the tool's message", code, body)
	}
	if err := env.eng.WaitKnowledgeIdle(as("alice")); err != nil {
		t.Fatal(err)
	}
	code, _, body = b.do("GET", loc+"/files.json", nil, map[string]string{"Accept": "application/json"})
	if code != 200 || !strings.Contains(body, `"status":"Ready"`) {
		t.Fatalf("files.json: %d %s", code, body)
	}
	id := regexp.MustCompile(`"id":"([^"]+)"`).FindStringSubmatch(body)[1]
	if code, body := b.get(loc + "/doc/" + id); code != 200 || !strings.Contains(body, "platypus facts") {
		t.Fatalf("document page: %d", code)
	}
	for _, mode := range []string{"Keyword", "Semantic", "Hybrid"} {
		if code, body := b.get(loc + "/search?q=platypus&mode=" + mode); code != 200 || !strings.Contains(body, "notes.md") {
			t.Errorf("knowledge search %s: %d", mode, code)
		}
	}
	if code, _, _ := b.post(loc+"/doc/"+id+"/delete", url.Values{"csrf": {b.csrf}}); code != 303 {
		t.Fatalf("delete document: %d", code)
	}
	if _, body := b.get(loc); strings.Contains(body, "notes.md") {
		t.Fatal("deleted document still listed")
	}
}

// TestSearchShowsShortText: a short entry's result carries no passage
// (its text_content is the whole text), and the search page shows that
// text instead; a long one shows the passage that matched, with its lines.
func TestSearchShowsShortText(t *testing.T) {
	env := newUIEnv(t, webui.Options{})
	store(t, env.eng, "alice", "notes", "the numbat eats termites")
	long := strings.Repeat("filler words about nothing in particular\n", 20) + "a quoll hunts at night"
	store(t, env.eng, "alice", "notes", long)
	b := env.browser()
	b.login("tok-alice")
	for _, mode := range []string{"fts", "semantic", "hybrid"} {
		_, body := b.get("/ui/search?q=numbat&mode=" + mode)
		if !strings.Contains(body, `aria-label="whole text">the numbat eats termites</blockquote>`) {
			t.Errorf("%s: the short entry's text is not shown", mode)
		}
		// The full-text matches place the passage at the words; a
		// semantic match without them starts its best chunk.
		want := `aria-label="matching passage, lines \d+–21">[^<]*a quoll hunts at night`
		if mode == "semantic" {
			want = `aria-label="matching passage, lines 1–\d+">filler words`
		}
		_, body = b.get("/ui/search?q=quoll&mode=" + mode)
		if !regexp.MustCompile(want).MatchString(body) {
			t.Errorf("%s: the long entry's passage is not shown", mode)
		}
	}
}
