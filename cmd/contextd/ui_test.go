package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestUILinkWorksOnce runs contextd ui in-process: the printed link is on
// loopback, logs in once (a session cookie, then the entries page), and
// is refused the second time.
func TestUILinkWorksOnce(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DB_PATH": filepath.Join(t.TempDir(), "ctx.db"), "LOG_LEVEL": "ERROR"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := runUI(ctx, nil, lookup, pw, io.Discard)
		pw.Close()
		done <- code
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("contextd ui exited %d", code)
		}
	})
	var link string
	sc := bufio.NewScanner(pr)
	for link == "" && sc.Scan() {
		link = regexp.MustCompile(`http://\S+`).FindString(sc.Text())
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if link == "" {
		t.Fatal("no link printed")
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		t.Fatalf("the link's host %q is not loopback", u.Host)
	}
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c := &http.Client{CheckRedirect: noRedirect}
	resp, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || len(cookies) == 0 || !cookies[0].HttpOnly {
		t.Fatalf("first use: %d, cookies %v", resp.StatusCode, cookies)
	}
	req, _ := http.NewRequest("GET", u.Scheme+"://"+u.Host+"/ui/", nil)
	req.AddCookie(cookies[0])
	if resp, err = c.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("entries page with the link's session: %d", resp.StatusCode)
	}
	if resp, err = c.Get(link); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("second use: %d, want 403", resp.StatusCode)
	}
}

func TestUIUsage(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"ui", "--help"}, os.LookupEnv, nil, &out, &errb); code != exitOK || out.String() != uiUsage {
		t.Fatalf("ui --help: exit %d, %q", code, out.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"ui", "now"}, os.LookupEnv, nil, &out, &errb); code != exitUsage ||
		errb.String() != "contextd ui: unexpected argument \"now\"\n"+uiUsage {
		t.Fatalf("ui now: exit %d, %q", code, errb.String())
	}
	errb.Reset()
	if code := run(context.Background(), []string{"ui", "-port", "70000"}, os.LookupEnv, nil, &out, &errb); code != exitUsage {
		t.Fatalf("ui -port 70000: exit %d, %q", code, errb.String())
	}
}
