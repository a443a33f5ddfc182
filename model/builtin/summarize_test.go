package builtin

import (
	"context"
	"strings"
	"testing"
)

const article = `# Database migration plan

The team decided to migrate the billing database from MySQL to PostgreSQL in March.
The migration uses logical replication so the billing service keeps running during the switch.
Lunch was pizza on Friday.
Replication lag on the billing database must stay below five seconds before the PostgreSQL cutover.
- Alice owns the PostgreSQL schema conversion for the billing tables.
- Bob writes the rollback plan in case replication to PostgreSQL fails.

` + "```sql\nSELECT 1;\n```" + `
The weather was nice.`

func TestSummarizeCentral(t *testing.T) {
	s := Summarizer{MaxWords: 40}
	out, err := s.Summarize(context.Background(), "ignored", article)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "\n") || strings.Contains(out, "#") || strings.Contains(out, "SELECT") {
		t.Fatalf("not one clean paragraph: %q", out)
	}
	if n := len(strings.Fields(out)); n == 0 || n > 40 {
		t.Fatalf("summary has %d words, want 1..40: %q", n, out)
	}
	if !strings.Contains(out, "PostgreSQL") || strings.Contains(out, "pizza") || strings.Contains(out, "weather") {
		t.Fatalf("summary is not drawn from the central sentences: %q", out)
	}
	if !strings.Contains(article, strings.Split(out, ". ")[0]) {
		t.Fatalf("summary is not extractive: %q", out)
	}
	again, _ := s.Summarize(context.Background(), "", article)
	if again != out {
		t.Fatalf("not deterministic")
	}
}

func TestSummarizeCaps(t *testing.T) {
	long := strings.Repeat("Systems engineering keeps the storage layer correct under heavy load. ", 200)
	for _, tc := range []struct {
		s    Summarizer
		want int
	}{{Summarizer{}, 250}, {Summarizer{MaxTokens: 60}, 45}} {
		out, _ := tc.s.Summarize(context.Background(), "", long)
		if n := len(strings.Fields(out)); n == 0 || n > tc.want {
			t.Fatalf("%+v: %d words, want 1..%d", tc.s, n, tc.want)
		}
	}
	if out, _ := (Summarizer{}).Summarize(context.Background(), "", "  \n\n "); out != "" {
		t.Fatalf("blank text summary = %q", out)
	}
}

func FuzzSummarize(f *testing.F) {
	f.Add(article)
	f.Add("a. b! c?\r\n# x")
	f.Fuzz(func(t *testing.T, text string) {
		out, err := Summarizer{MaxWords: 30}.Summarize(context.Background(), "", text)
		if err != nil || len(strings.Fields(out)) > 30 {
			t.Fatalf("%q -> %q, %v", text, out, err)
		}
		if len(splitSentences(text)) > 0 && out == "" {
			t.Fatalf("%q has sentences but an empty summary", text)
		}
	})
}
