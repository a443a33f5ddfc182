package contextd_test

import (
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/goroot"
)

// realParagraphs returns the prose paragraphs of the Go distribution's
// documentation (the language spec, the memory model, GODEBUG notes):
// real English technical text available offline on every machine that
// builds this module.
func realParagraphs(b *testing.B) []string {
	b.Helper()
	var paras []string
	tag := regexp.MustCompile(`<[^>]*>`)
	for _, name := range []string{"go_spec.html", "go_mem.html", "godebug.md", "asm.html"} {
		raw, err := os.ReadFile(filepath.Join(goroot.Dir(), "doc", name))
		if err != nil {
			continue
		}
		text := html.UnescapeString(tag.ReplaceAllString(string(raw), ""))
		for _, p := range strings.Split(text, "\n\n") {
			p = strings.Join(strings.Fields(p), " ")
			if len(p) >= 80 {
				paras = append(paras, p)
			}
		}
	}
	if len(paras) < 100 {
		b.Skipf("Go documentation not found under %s/doc", goroot.Dir())
	}
	return paras
}

func percentile(d []time.Duration, p float64) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p * float64(len(s)-1))
	return float64(s[i].Microseconds()) / 1000
}

// BenchmarkGrep10k greps 10,000 entries of real text, literal and regex,
// scanning all of them (caps raised to 10,000), and reports the median and
// p99 latency per call in milliseconds.
func BenchmarkGrep10k(b *testing.B) {
	paras := realParagraphs(b)
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "bench"})
	eng, err := contextd.Open(ctx, contextd.Config{
		DBPath: filepath.Join(b.TempDir(), "grep.db"),
		Grep:   contextd.GrepConfig{MaxEntriesScanned: 10000, MaxMatchesCap: 10000},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	const entries = 10000
	no := false
	for i := 0; i < entries; i += 100 {
		req := contextd.StoreBatchRequest{}
		for j := i; j < i+100; j++ {
			text := paras[j%len(paras)] + "\n" + paras[(j*7+3)%len(paras)] + "\n" + paras[(j*13+5)%len(paras)]
			req.Entries = append(req.Entries, contextd.StoreBatchItem{StoreRequest: contextd.StoreRequest{
				ThreadID: fmt.Sprintf("t%02d", j%50), Source: "agent", Text: text, Deduplicate: &no}})
		}
		if _, err := eng.StoreBatch(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	cases := []struct {
		name string
		req  contextd.GrepRequest
	}{
		{"literal", contextd.GrepRequest{Pattern: "goroutine", MaxMatches: 10000, MaxEntriesScanned: entries}},
		{"literal-rare", contextd.GrepRequest{Pattern: "happens before", MaxMatches: 10000, MaxEntriesScanned: entries}},
		{"regex", contextd.GrepRequest{Pattern: `\b(chan|channel)s?\b.*\bclose`, IsRegex: true, MaxMatches: 10000, MaxEntriesScanned: entries}},
		{"regex-content", contextd.GrepRequest{Pattern: `^The \w+ `, IsRegex: true, OutputMode: contextd.GrepContent, ContextLines: 1, MaxMatches: 1000, MaxEntriesScanned: entries}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var durs []time.Duration
			for b.Loop() {
				start := time.Now()
				resp, err := eng.Grep(ctx, c.req)
				if err != nil {
					b.Fatal(err)
				}
				durs = append(durs, time.Since(start))
				if resp.TotalMatches == 0 {
					b.Fatalf("%s: no matches", c.name)
				}
			}
			b.ReportMetric(percentile(durs, 0.5), "p50-ms")
			b.ReportMetric(percentile(durs, 0.99), "p99-ms")
		})
	}
}

// BenchmarkNavigate1MB outlines a 1 MB Markdown document of real text
// (sections at three levels every few paragraphs, a fenced block now and
// then) through navigate_context, and reads one node back.
func BenchmarkNavigate1MB(b *testing.B) {
	paras := realParagraphs(b)
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		switch {
		case i%40 == 0:
			fmt.Fprintf(&sb, "# Part %d\n\n", i/40)
		case i%10 == 0:
			fmt.Fprintf(&sb, "## %s\n\n", strings.Join(strings.Fields(paras[i%len(paras)])[:4], " "))
		case i%5 == 0:
			fmt.Fprintf(&sb, "### Notes\n\n")
		case i%17 == 0:
			sb.WriteString("```go\n# not a heading\nx := 1\n```\n\n")
		}
		sb.WriteString(paras[i%len(paras)])
		sb.WriteString("\n\n")
	}
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "bench"})
	eng, err := contextd.Open(ctx, contextd.Config{DBPath: filepath.Join(b.TempDir(), "nav.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	res, err := eng.Store(ctx, contextd.StoreRequest{ThreadID: "nav", Source: "user", Text: sb.String()})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("navigate", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(sb.Len()))
		var durs []time.Duration
		for b.Loop() {
			start := time.Now()
			nav, err := eng.Navigate(ctx, contextd.NavigateRequest{ContextID: res.ContextID})
			if err != nil {
				b.Fatal(err)
			}
			durs = append(durs, time.Since(start))
			if nav.NodeCount == 0 {
				b.Fatal("no nodes")
			}
		}
		b.ReportMetric(percentile(durs, 0.5), "p50-ms")
		b.ReportMetric(percentile(durs, 0.99), "p99-ms")
	})
	b.Run("read-node", func(b *testing.B) {
		b.ReportAllocs()
		nav, err := eng.Navigate(ctx, contextd.NavigateRequest{ContextID: res.ContextID})
		if err != nil {
			b.Fatal(err)
		}
		part := nav.Root.Children[len(nav.Root.Children)/2]
		node := part.Children[len(part.Children)-1].NodeID
		for b.Loop() {
			if _, err := eng.ReadRange(ctx, contextd.ReadRangeRequest{ContextID: res.ContextID, NodeID: &node}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
