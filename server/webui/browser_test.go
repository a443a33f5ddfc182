package webui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/lab/loadtest"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/server"
)

// ChromiumEnv names a Chromium or Chrome binary for the browser tests;
// unset, they look for chromium, chromium-browser and google-chrome on
// PATH and skip when there is none (scripts/test.sh installs Debian's
// chromium package where it can).
const ChromiumEnv = "CONTEXTD_CHROMIUM"

// ScreenshotsEnv names a folder for the browser tests' screenshots
// (default: the test's temporary folder).
const ScreenshotsEnv = "CONTEXTD_UI_SCREENSHOTS"

func findChromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(ChromiumEnv); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found (install Debian's chromium package, or set " + ChromiumEnv + "): the browser tests are skipped")
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile and returns
// a tab's context, 1280×800.
func newBrowser(t testing.TB) context.Context {
	t.Helper()
	bin := findChromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Skipf("Chromium at %s does not start: %v", bin, err)
	}
	// Confirmation dialogs (delete) are accepted.
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	return ctx
}

func screenshotDir(t testing.TB) string {
	if d := os.Getenv(ScreenshotsEnv); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// run runs actions with a deadline, failing t with what was being done.
func run(t testing.TB, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// value runs one action that returns a value.
func value[T any](t testing.TB, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func shot(t testing.TB, ctx context.Context, dir, name string) {
	t.Helper()
	png := value(t, ctx, "screenshot "+name, chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func bodyText(t testing.TB, ctx context.Context) string {
	t.Helper()
	return value(t, ctx, "read the page", chromedp.Text(chromedp.CSS("body")))
}

// serveAll serves the MCP endpoint and the page on one httptest server,
// as the HTTP transport does, with the test authenticator.
func serveAll(t testing.TB, eng *contextd.Engine) string {
	t.Helper()
	srv, err := server.New(eng, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(server.HTTPOptions{Auth: testAuth}))
	t.Cleanup(ts.Close)
	return ts.URL
}

func login(t testing.TB, ctx context.Context, base, token string) {
	t.Helper()
	run(t, ctx, "log in as "+token,
		chromedp.Navigate(base+"/ui/login"),
		chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), token),
		chromedp.Submit(chromedp.CSS("#token")),
		chromedp.WaitVisible(chromedp.CSS(`nav[aria-label="Main"]`)))
}

func mcpCall(t testing.TB, c *loadtest.Client, tool string, args loadtest.M) loadtest.M {
	t.Helper()
	res, msg, err := c.Call(context.Background(), tool, args)
	if err != nil || msg != "" {
		t.Fatalf("%s: err=%v tool error=%q", tool, err, msg)
	}
	return res
}

// TestBrowserFlow drives the page in a real headless Chromium through the
// flow people use: log in, see an entry stored through MCP, edit it and
// see the change through MCP, search in each mode, delete it, upload
// three files of different formats and wait for Ready, open a document,
// and check that a second principal sees none of it.
func TestBrowserFlow(t *testing.T) {
	testtier.Long(t)
	ctx := newBrowser(t)
	shots := screenshotDir(t)
	eng, err := contextd.Open(context.Background(), contextd.Config{DBPath: filepath.Join(t.TempDir(), "ctx.db"),
		FTS: contextd.FTSConfig{Progress: io.Discard}, Embedding: contextd.EmbeddingConfig{Embedder: &builtin.Embedder{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	base := serveAll(t, eng)
	mcp, err := loadtest.Dial(context.Background(), base, "tok-alice")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mcp.Close() })
	for i, text := range []string{"The deploy key for the staging cluster lives in the vault under ops/staging.",
		"Kiwi birds cannot fly; the team mascot is a kiwi.", "Postgres backups run nightly at 02:00 UTC."} {
		mcpCall(t, mcp, "store_context", loadtest.M{"thread_id": []string{"ops", "notes", "ops"}[i], "source": "agent",
			"text": text, "tags": []string{"demo"}})
	}
	id := mcpCall(t, mcp, "store_context", loadtest.M{"thread_id": "notes", "source": "user",
		"text": "Remember: the quarterly review moves to Thursday.", "metadata": loadtest.M{"project": "apollo"}})["context_id"].(string)

	login(t, ctx, base, "tok-alice")
	if s := bodyText(t, ctx); !strings.Contains(s, "quarterly review moves to Thursday") {
		t.Fatalf("the entry stored through MCP is not on the list page:\n%s", s)
	}
	shot(t, ctx, shots, "entries")

	// Edit on the page, read through MCP.
	run(t, ctx, "edit the entry",
		chromedp.Navigate(base+"/ui/entry/"+id),
		chromedp.WaitVisible(chromedp.CSS("#edit-form")),
		chromedp.SetValue(chromedp.CSS("#text"), "Remember: the quarterly review moves to Friday."),
		chromedp.SetValue(chromedp.CSS("#tags"), "meetings, q3"),
		chromedp.Submit(chromedp.CSS("#edit-form")),
		chromedp.WaitVisible(chromedp.CSS("p.ok")))
	shot(t, ctx, shots, "entry")
	got := mcpCall(t, mcp, "get_context_by_ids", loadtest.M{"context_ids": []string{id}})["result"].([]any)[0].(map[string]any)
	if got["text_content"] != "Remember: the quarterly review moves to Friday." || fmt.Sprint(got["tags"]) != "[meetings q3]" {
		t.Fatalf("MCP does not see the page's edit: %v %v", got["text_content"], got["tags"])
	}

	// Search in each mode.
	for _, c := range []struct{ mode, q, want string }{{"fts", "deploy key", "vault"}, {"semantic", "flightless bird", "Kiwi"},
		{"hybrid", "quarterly review", "Friday"}} {
		run(t, ctx, "search "+c.mode,
			chromedp.Navigate(base+"/ui/search?mode="+c.mode+"&q="+strings.ReplaceAll(c.q, " ", "+")),
			chromedp.WaitVisible(chromedp.CSS("li.hit")))
		s := bodyText(t, ctx)
		if !strings.Contains(s, c.want) {
			t.Errorf("search %s %q: %q not on the page:\n%s", c.mode, c.q, c.want, s)
		}
		if c.mode == "fts" {
			marks := value(t, ctx, "count highlights", chromedp.Evaluate[int](`document.querySelectorAll("p.hl mark").length`))
			if marks == 0 {
				t.Errorf("full-text search shows no highlight")
			}
			shot(t, ctx, shots, "search")
		}
	}

	// Delete on the page (the confirmation is accepted), gone through MCP.
	run(t, ctx, "delete the entry",
		chromedp.Navigate(base+"/ui/entry/"+id),
		chromedp.WaitVisible(chromedp.CSS("#delete-entry")),
		chromedp.Click(chromedp.CSS("#delete-entry")),
		chromedp.WaitVisible(chromedp.CSS(`table[aria-label="Entries"]`)))
	if n := len(mcpCall(t, mcp, "get_context_by_ids", loadtest.M{"context_ids": []string{id}})["result"].([]any)); n != 0 {
		t.Fatalf("MCP still reads the entry deleted on the page")
	}

	// A container, three files of different formats, each to Ready.
	dir := t.TempDir()
	files := map[string]string{
		"runbook.md": "# Runbook\n\nRestart the ingest workers with `systemctl restart ingest`.\n",
		"hosts.csv":  "host,role\ndb1,primary\ndb2,replica\n",
		"intro.json": `{"welcome": "The platypus is the project's mascot.", "since": 2019}`,
	}
	var paths []string
	for n, c := range files {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	run(t, ctx, "create a container and upload",
		chromedp.Navigate(base+"/ui/knowledge"),
		chromedp.SendKeys(chromedp.CSS(`input[name="name"]`), "team-docs"),
		chromedp.Submit(chromedp.CSS(`input[name="name"]`)),
		chromedp.WaitVisible(chromedp.CSS("#drop")),
		chromedp.SetUploadFiles(chromedp.CSS("#file-input"), paths))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#files td.status-Ready").length === 3`,
		chromedp.WithPollingTimeout(45*time.Second))); err != nil {
		shot(t, ctx, shots, "upload-failure")
		t.Fatalf("three documents did not get Ready: %v\n%s", err, bodyText(t, ctx))
	}
	uploads := value(t, ctx, "count accepted uploads", chromedp.Evaluate[int](`document.querySelectorAll("#uploads li.upload-ok").length`))
	if uploads != 3 {
		t.Errorf("%d uploads accepted on the page, want 3", uploads)
	}
	shot(t, ctx, shots, "upload")
	run(t, ctx, "reload the container", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#files")))
	if s := bodyText(t, ctx); !strings.Contains(s, "3 documents: 3 ready") {
		t.Errorf("the container's figures after the uploads:\n%s", s)
	}
	shot(t, ctx, shots, "container")
	run(t, ctx, "open a document",
		chromedp.Click(chromedp.Search(`//a[text()="intro.json"]`)),
		chromedp.WaitVisible(chromedp.CSS("#doc-text")))
	docText := value(t, ctx, "read the document", chromedp.Text(chromedp.CSS("#doc-text")))
	if !strings.Contains(docText, "platypus is the project's mascot") {
		t.Fatalf("the document page does not show the extracted text: %q", docText)
	}
	shot(t, ctx, shots, "document")
	for _, mode := range []string{"Keyword", "Semantic", "Hybrid"} {
		run(t, ctx, "search the container "+mode,
			chromedp.Navigate(base+"/ui/knowledge/team-docs/search?q=restart+ingest+workers&mode="+mode),
			chromedp.WaitVisible(chromedp.CSS("li.hit")))
		if s := bodyText(t, ctx); !strings.Contains(s, "runbook.md") {
			t.Errorf("container search %s does not find runbook.md", mode)
		}
	}
	run(t, ctx, "statistics", chromedp.Navigate(base+"/ui/stats"), chromedp.WaitVisible(chromedp.CSS("figure.chart svg")))
	shot(t, ctx, shots, "stats")
	run(t, ctx, "narrow screen", chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/ui/"),
		chromedp.WaitVisible(chromedp.CSS("table")))
	shot(t, ctx, shots, "entries-narrow")
	run(t, ctx, "wide again", chromedp.EmulateViewport(1280, 800))

	// A second principal sees none of it: pages, counts, search.
	run(t, ctx, "log out", chromedp.Click(chromedp.CSS(".logout button")), chromedp.WaitVisible(chromedp.CSS("#token")))
	login(t, ctx, base, "tok-bob")
	for _, p := range []string{"/ui/", "/ui/threads", "/ui/search?mode=fts&q=deploy+key", "/ui/search?mode=hybrid&q=kiwi", "/ui/knowledge", "/ui/stats"} {
		run(t, ctx, "bob opens "+p, chromedp.Navigate(base+p), chromedp.WaitVisible(chromedp.CSS("main")))
		s := bodyText(t, ctx)
		for _, secret := range []string{"vault", "Kiwi birds", "team-docs", "Postgres backups"} {
			if strings.Contains(s, secret) {
				t.Errorf("bob's %s shows alice's %q", p, secret)
			}
		}
	}
	run(t, ctx, "bob's statistics", chromedp.Navigate(base+"/ui/stats"))
	total := value(t, ctx, "bob's count", chromedp.Text(chromedp.CSS("#total-entries")))
	if total != "0" {
		t.Errorf("bob's statistics count %s entries, want 0", total)
	}
	run(t, ctx, "bob's list", chromedp.Navigate(base+"/ui/"), chromedp.WaitVisible(chromedp.CSS("main")))
	shot(t, ctx, shots, "second-principal")
	t.Logf("screenshots in %s", shots)
}

// navTiming is what the browser measured of one page load.
type navTiming struct {
	Server float64 `json:"server"` // request start to response end
	DOM    float64 `json:"dom"`    // navigation start to DOMContentLoaded end
	Load   float64 `json:"load"`   // navigation start to load end
}

func measure(t testing.TB, ctx context.Context, url string) navTiming {
	t.Helper()
	run(t, ctx, "load "+url, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body")))
	raw := value(t, ctx, "timing of "+url, chromedp.Poll[string](`(function(){const n=performance.getEntriesByType("navigation")[0];
			return n && n.loadEventEnd > 0 ? JSON.stringify({server:n.responseEnd-n.requestStart, dom:n.domContentLoadedEventEnd, load:n.loadEventEnd}) : false})()`,
		chromedp.WithPollingTimeout(30*time.Second)))
	var nt navTiming
	if err := json.Unmarshal([]byte(raw), &nt); err != nil {
		t.Fatalf("timing %q: %v", raw, err)
	}
	return nt
}
