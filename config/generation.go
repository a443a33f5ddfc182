package config

import (
	"math"
	"runtime"
	"strings"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/index/grep"
	"github.com/contextd/contextd/model/anthropic"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/model/httpjson"
	"github.com/contextd/contextd/model/ollama"
	"github.com/contextd/contextd/model/openai"
)

// The engine consumes the providers through its one-method seam.
var (
	_ contextd.Summarizer = builtin.Summarizer{}
	_ contextd.Summarizer = (*ollama.Summarizer)(nil)
	_ contextd.Summarizer = (*openai.Summarizer)(nil)
	_ contextd.Summarizer = (*anthropic.Summarizer)(nil)
)

// readNavigation reads the GREP_* caps and the tri-state toggles of the
// three navigation tools; a tool switched off joins DisabledTools.
func readNavigation(r *envReader, c *Config) {
	for _, t := range []struct{ env, tool string }{
		{"ENABLE_GREP_CONTEXT", "grep_context"},
		{"ENABLE_CONTEXT_NAVIGATION", "navigate_context"},
		{"ENABLE_CONTEXT_RANGE", "read_context_range"},
	} {
		if r.triState(t.env) == "false" {
			c.Server.DisabledTools = append(c.Server.DisabledTools, t.tool)
		}
	}
	g := &c.Engine.Grep
	g.MaxMatchesCap = r.intRange("GREP_MAX_MATCHES_CAP", 1000, 1, 10000)
	g.MaxContextLines = r.intRange("GREP_MAX_CONTEXT_LINES", 20, 1, 100)
	g.MaxEntriesScanned = r.intRange("GREP_MAX_ENTRIES_SCANNED", 1000, 1, 1_000_000)
	g.AggregateBytesBudget = r.intRange("GREP_AGGREGATE_BYTES_BUDGET", 64<<20, 1, math.MaxInt32)
	g.RegexTimeout = r.seconds("GREP_REGEX_TIMEOUT_S", 5, 3600)
	g.RegexTotalTimeout = r.seconds("GREP_REGEX_TOTAL_TIMEOUT_S", 30, 3600)
	g.MaxPatternChars = r.intRange("GREP_MAX_PATTERN_CHARS", 32768, 1, 1<<20)
	g.MaxLineChars = r.intRange("GREP_MAX_LINE_CHARS", grep.DefaultLineChars, 16, 1<<20)
}

// readSummary reads ENABLE_SUMMARY_GENERATION, SUMMARY_* and the
// INDEX_TREE_* node-summary settings, and builds the summary provider.
// The default provider is the offline extractive summarizer (builtin).
func readSummary(r *envReader, c *Config) {
	s := &c.Engine.Summary
	s.Enabled = r.boolean("ENABLE_SUMMARY_GENERATION", true)
	s.Provider = r.choice("SUMMARY_PROVIDER", "builtin", strings.ToLower, "builtin", "ollama", "openai", "anthropic")
	defModel := map[string]string{"builtin": "extractive", "ollama": "qwen3:0.6b", "openai": "gpt-4o-mini", "anthropic": "claude-haiku-4-5"}[s.Provider]
	s.Model = defModel
	if m := r.text("SUMMARY_MODEL"); m != "" {
		s.Model = m
	}
	maxTokens := r.intRange("SUMMARY_MAX_TOKENS", 4000, 50, 16384)
	timeout := r.seconds("SUMMARY_TIMEOUT_S", 240, 600)
	attempts := r.intRange("SUMMARY_RETRY_MAX_ATTEMPTS", 5, 1, 100)
	baseDelay := r.seconds0("SUMMARY_RETRY_BASE_DELAY_S", 3, 600)
	s.MaxConcurrent = r.intRange("SUMMARY_MAX_CONCURRENT", 2, 1, 20)
	if v, ok := r.lookup("SUMMARY_PROMPT"); ok && strings.TrimSpace(v) != "" {
		s.Prompt = v
	}
	minLen := r.intRange("SUMMARY_MIN_CONTENT_LENGTH", 500, 0, 10000)
	s.MinContentLength = &minLen
	numCtx := r.intRange("SUMMARY_OLLAMA_NUM_CTX", 32768, 512, 2097152)
	truncate := r.boolean("SUMMARY_OLLAMA_TRUNCATE", false)
	effort := r.choice("SUMMARY_OPENAI_REASONING_EFFORT", "low", strings.ToLower, "minimal", "low", "medium", "high", "none")
	anthropicEffort := r.choice("SUMMARY_ANTHROPIC_EFFORT", "", strings.ToLower, "max", "high", "medium", "low")

	client := httpjson.Client{Timeout: timeout, Attempts: attempts, BaseDelay: baseDelay, Limit: make(chan struct{}, s.MaxConcurrent)}
	if s.Enabled {
		switch s.Provider {
		case "builtin":
			s.Summarizer = builtin.Summarizer{MaxTokens: maxTokens}
		case "ollama":
			host := r.text("OLLAMA_HOST")
			if host != "" && !strings.Contains(host, "://") {
				host = "http://" + host
			}
			s.Summarizer = &ollama.Summarizer{BaseURL: host, Model: s.Model, MaxTokens: maxTokens, NumCtx: numCtx, Truncate: truncate, Client: client}
		case "openai":
			s.Summarizer = &openai.Summarizer{BaseURL: r.text("OPENAI_API_BASE"), APIKey: r.text("OPENAI_API_KEY"),
				Model: s.Model, MaxTokens: maxTokens, ReasoningEffort: effort, Client: client}
		case "anthropic":
			key := r.text("ANTHROPIC_API_KEY")
			if key == "" {
				r.fail("ANTHROPIC_API_KEY", "", "must be set when SUMMARY_PROVIDER=anthropic")
			}
			s.Summarizer = &anthropic.Summarizer{APIKey: key, Model: s.Model, MaxTokens: maxTokens, Effort: anthropicEffort, Client: client}
		}
	}

	t := &c.Engine.IndexTree
	t.Disabled = !r.boolean("ENABLE_INDEX_TREE_NODE_SUMMARIES", true)
	if v, ok := r.lookup("INDEX_TREE_NODE_SUMMARY_PROMPT"); ok && strings.TrimSpace(v) != "" {
		t.Prompt = v
	}
	nodeMin := r.intRange("INDEX_TREE_NODE_SUMMARY_MIN_CONTENT_LENGTH", 500, 0, 100000)
	t.MinContentLength = &nodeMin
	t.Timeout = r.seconds("INDEX_TREE_NODE_SUMMARY_TIMEOUT_S", 240, 600)
	t.MaxConcurrent = r.intRange("INDEX_TREE_NODE_SUMMARY_MAX_CONCURRENT", min(runtime.NumCPU(), 4), 1, 32)
	t.MaxNodes = r.intRange("INDEX_TREE_NODE_SUMMARY_MAX_NODES", 200, 1, 10000)
	t.TotalTimeout = r.seconds("INDEX_TREE_NODE_SUMMARY_TOTAL_TIMEOUT_S", 600, 3600)
}
