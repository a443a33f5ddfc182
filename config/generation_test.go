package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/model/anthropic"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/model/ollama"
	"github.com/contextd/contextd/model/openai"
)

func TestConfigGenerationDefaults(t *testing.T) {
	c, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db"}))
	if err != nil {
		t.Fatal(err)
	}
	g, s, it := c.Engine.Grep, c.Engine.Summary, c.Engine.IndexTree
	checks := []struct {
		name      string
		got, want any
	}{
		{"GREP_MAX_MATCHES_CAP", g.MaxMatchesCap, 1000},
		{"GREP_MAX_CONTEXT_LINES", g.MaxContextLines, 20},
		{"GREP_MAX_ENTRIES_SCANNED", g.MaxEntriesScanned, 1000},
		{"GREP_AGGREGATE_BYTES_BUDGET", g.AggregateBytesBudget, 67108864},
		{"GREP_REGEX_TIMEOUT_S", g.RegexTimeout, 5 * time.Second},
		{"GREP_REGEX_TOTAL_TIMEOUT_S", g.RegexTotalTimeout, 30 * time.Second},
		{"GREP_MAX_PATTERN_CHARS", g.MaxPatternChars, 32768},
		{"GREP_MAX_LINE_CHARS", g.MaxLineChars, 1000},
		{"ENABLE_SUMMARY_GENERATION", s.Enabled, true},
		{"SUMMARY_PROVIDER", s.Provider, "builtin"},
		{"SUMMARY_MODEL", s.Model, "extractive"},
		{"summarizer", s.Summarizer, builtin.Summarizer{MaxTokens: 4000}},
		{"SUMMARY_MIN_CONTENT_LENGTH", *s.MinContentLength, 500},
		{"SUMMARY_MAX_CONCURRENT", s.MaxConcurrent, 2},
		{"ENABLE_INDEX_TREE_NODE_SUMMARIES", it.Disabled, false},
		{"INDEX_TREE_NODE_SUMMARY_MIN_CONTENT_LENGTH", *it.MinContentLength, 500},
		{"INDEX_TREE_NODE_SUMMARY_MAX_NODES", it.MaxNodes, 200},
		{"INDEX_TREE_NODE_SUMMARY_TIMEOUT_S", it.Timeout, 240 * time.Second},
		{"INDEX_TREE_NODE_SUMMARY_TOTAL_TIMEOUT_S", it.TotalTimeout, 600 * time.Second},
		{"DisabledTools", len(c.Server.DisabledTools), 0},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestConfigGenerationValues(t *testing.T) {
	c, err := FromEnv(lookupMap(map[string]string{
		"DB_PATH":                          "/tmp/x.db",
		"ENABLE_GREP_CONTEXT":              "off",
		"ENABLE_CONTEXT_NAVIGATION":        "disabled",
		"ENABLE_CONTEXT_RANGE":             "auto",
		"GREP_MAX_MATCHES_CAP":             "50",
		"GREP_REGEX_TIMEOUT_S":             "0.5",
		"GREP_MAX_LINE_CHARS":              "64",
		"SUMMARY_PROVIDER":                 "OpenAI",
		"SUMMARY_MODEL":                    "gpt-x",
		"OPENAI_API_KEY":                   "k",
		"SUMMARY_MIN_CONTENT_LENGTH":       "0",
		"SUMMARY_RETRY_MAX_ATTEMPTS":       "2",
		"ENABLE_INDEX_TREE_NODE_SUMMARIES": "false",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Server.DisabledTools, ","); got != "grep_context,navigate_context" {
		t.Fatalf("DisabledTools = %s", got)
	}
	if c.Engine.Grep.MaxMatchesCap != 50 || c.Engine.Grep.RegexTimeout != 500*time.Millisecond || c.Engine.Grep.MaxLineChars != 64 {
		t.Fatalf("grep config %+v", c.Engine.Grep)
	}
	o, ok := c.Engine.Summary.Summarizer.(*openai.Summarizer)
	if !ok || o.Model != "gpt-x" || o.APIKey != "k" || o.Client.Attempts != 2 || o.ReasoningEffort != "low" {
		t.Fatalf("summarizer %#v", c.Engine.Summary.Summarizer)
	}
	if *c.Engine.Summary.MinContentLength != 0 || !c.Engine.IndexTree.Disabled {
		t.Fatalf("summary %+v index tree %+v", c.Engine.Summary, c.Engine.IndexTree)
	}
	for prov, want := range map[string]any{"ollama": &ollama.Summarizer{}, "anthropic": &anthropic.Summarizer{}} {
		c, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/x", "SUMMARY_PROVIDER": prov, "ANTHROPIC_API_KEY": "k"}))
		if err != nil {
			t.Fatal(err)
		}
		switch want.(type) {
		case *ollama.Summarizer:
			if s, ok := c.Engine.Summary.Summarizer.(*ollama.Summarizer); !ok || s.Model != "qwen3:0.6b" || s.NumCtx != 32768 {
				t.Fatalf("ollama summarizer %#v", c.Engine.Summary.Summarizer)
			}
		case *anthropic.Summarizer:
			if _, ok := c.Engine.Summary.Summarizer.(*anthropic.Summarizer); !ok {
				t.Fatalf("anthropic summarizer %#v", c.Engine.Summary.Summarizer)
			}
		}
	}
	off, _ := FromEnv(lookupMap(map[string]string{"DB_PATH": "/x", "ENABLE_SUMMARY_GENERATION": "false"}))
	if off.Engine.Summary.Summarizer != nil || off.Engine.Summary.Enabled {
		t.Fatalf("disabled summary generation still has a summarizer")
	}
}

func TestConfigGenerationErrors(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"ENABLE_GREP_CONTEXT", "maybe"},
		{"GREP_MAX_MATCHES_CAP", "0"},
		{"GREP_REGEX_TIMEOUT_S", "-1"},
		{"GREP_MAX_LINE_CHARS", "15"},
		{"SUMMARY_PROVIDER", "gemini"},
		{"SUMMARY_MAX_TOKENS", "10"},
		{"SUMMARY_TIMEOUT_S", "601"},
		{"SUMMARY_MAX_CONCURRENT", "21"},
		{"SUMMARY_MIN_CONTENT_LENGTH", "10001"},
		{"SUMMARY_ANTHROPIC_EFFORT", "extreme"},
		{"INDEX_TREE_NODE_SUMMARY_MAX_NODES", "0"},
		{"INDEX_TREE_NODE_SUMMARY_TOTAL_TIMEOUT_S", "4000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/x", tc.name: tc.value}))
			var ce *Error
			if !errors.As(err, &ce) || ce.Var != tc.name {
				t.Fatalf("err = %v, want an *Error on %s", err, tc.name)
			}
		})
	}
	_, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/x", "SUMMARY_PROVIDER": "anthropic"}))
	var ce *Error
	if !errors.As(err, &ce) || ce.Var != "ANTHROPIC_API_KEY" {
		t.Fatalf("anthropic without key: %v", err)
	}
}
