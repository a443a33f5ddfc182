package webui_test

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/server/webui"
)

// TestEntriesPerMonth checks the statistics page's monthly counts
// against entries stored at known times: the month's count where it has
// entries, 0 where it has none, and nothing older than 12 months.
func TestEntriesPerMonth(t *testing.T) {
	now := time.Now().UTC()
	at := now
	eng, err := contextd.Open(context.Background(), contextd.Config{DBPath: filepath.Join(t.TempDir(), "ctx.db"),
		FTS: contextd.FTSConfig{Progress: io.Discard}, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	first := time.Date(now.Year(), now.Month(), 1, 12, 0, 0, 0, time.UTC)
	want := map[string]int{}
	for months, n := range map[int]int{0: 3, 2: 2, 11: 1, 13: 4} {
		at = first.AddDate(0, -months, 0)
		for i := range n {
			store(t, eng, "alice", "t", "entry "+itoa(months)+"."+itoa(i)) // distinct: equal texts are deduplicated
		}
		if months < 12 {
			want[at.Format("2006-01")] = n
		}
	}
	store(t, eng, "bob", "t", "not alice's") // another principal's entry counts for nobody else
	ui, err := webui.New(eng, webui.Options{Auth: testAuth})
	if err != nil {
		t.Fatal(err)
	}
	env := &uiEnv{t: t, eng: eng}
	env.url = serve(t, ui)
	b := env.browser()
	b.login("tok-alice")
	_, body := b.get("/ui/stats")
	for i := range 12 {
		m := first.AddDate(0, -i, 0).Format("2006-01")
		title := "<title>" + m + ": " + itoa(want[m]) + "</title>"
		if !strings.Contains(body, title) {
			t.Errorf("statistics page lacks %s", title)
		}
	}
	if old := first.AddDate(0, -13, 0).Format("2006-01"); strings.Contains(body, "<title>"+old+":") {
		t.Errorf("the chart shows %s, older than 12 months", old)
	}
}
