package contextd

import (
	"context"
	"runtime"
	"time"

	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/persist"
)

// Summarizer turns a text into a summary; see [model.Summarizer].
type Summarizer = model.Summarizer

// SummaryConfig configures flat summaries (C.11). The zero value
// generates none.
type SummaryConfig struct {
	// Summarizer generates summaries; nil disables generation.
	Summarizer Summarizer
	// Enabled is ENABLE_SUMMARY_GENERATION as configured, for statistics.
	Enabled bool
	// Provider and Model name the summarizer for statistics.
	Provider, Model string
	// MinContentLength is SUMMARY_MIN_CONTENT_LENGTH; nil means 500, 0
	// summarizes every text.
	MinContentLength *int
	// Prompt is SUMMARY_PROMPT; "" uses the built-in source-specific prompts.
	Prompt string
	// MaxConcurrent is SUMMARY_MAX_CONCURRENT (default 2), shared with
	// node summaries.
	MaxConcurrent int
}

func (c SummaryConfig) minLength() int {
	if c.MinContentLength == nil {
		return 500
	}
	return *c.MinContentLength
}

// IndexTreeConfig configures index-tree node summaries (C.12, R-405).
// The zero value enables them with the documented defaults (they still
// need a Summarizer).
type IndexTreeConfig struct {
	// Disabled is ENABLE_INDEX_TREE_NODE_SUMMARIES=false.
	Disabled bool
	// Prompt is INDEX_TREE_NODE_SUMMARY_PROMPT ("" = built-in).
	Prompt string
	// MinContentLength is INDEX_TREE_NODE_SUMMARY_MIN_CONTENT_LENGTH
	// (nil = 500).
	MinContentLength *int
	// Timeout bounds one node (default 240s); TotalTimeout all nodes of an
	// entry (default 600s).
	Timeout, TotalTimeout time.Duration
	// MaxConcurrent bounds parallel node requests (default min(cpu, 4)).
	MaxConcurrent int
	// MaxNodes caps the summarized sections (default 200).
	MaxNodes int
}

func (c IndexTreeConfig) enabled() bool { return !c.Disabled }

func (c IndexTreeConfig) withDefaults() IndexTreeConfig {
	if c.MinContentLength == nil {
		n := 500
		c.MinContentLength = &n
	}
	if c.Timeout <= 0 {
		c.Timeout = 240 * time.Second
	}
	if c.TotalTimeout <= 0 {
		c.TotalTimeout = 600 * time.Second
	}
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = min(runtime.NumCPU(), 4)
	}
	if c.MaxNodes <= 0 {
		c.MaxNodes = 200
	}
	return c
}

// The built-in prompts: one dense English paragraph, no labels.
const (
	userSummaryPrompt = `/no_think
Summarize the following message written by a user for an AI agent's long-term memory. Write ONE dense English paragraph of about 100 to 250 words that captures the user's goals, requests, key topics, named entities, constraints, preferences and any decisions or open questions. State the facts directly: no headings, labels, bullet points, or meta phrases such as "This text" or "The user says".`
	agentSummaryPrompt = `/no_think
Summarize the following output written by an AI agent for its long-term memory. Write ONE dense English paragraph of about 100 to 250 words that captures what was done, the key findings, decisions and their reasons, named entities, files, commands, results and any open issues or next steps. State the facts directly: no headings, labels, bullet points, or meta phrases such as "This text" or "The agent".`
	nodeSummaryPrompt = `/no_think
Summarize the following section of a document in ONE dense English sentence that names its key topic, entities and conclusions. No labels or meta phrases.`
)

// summaryPrompt returns the prompt for an entry of source.
func (e *Engine) summaryPrompt(source string) string {
	if e.cfg.Summary.Prompt != "" {
		return e.cfg.Summary.Prompt
	}
	if source == "agent" {
		return agentSummaryPrompt
	}
	return userSummaryPrompt
}

// storedNodes is the stored node summaries of one entry, for attaching
// them to a freshly computed outline.
type storedNodes struct {
	byID   map[string]persist.NodeSummary
	bySpan map[[2]int]string
}

// lookup attaches by node id when the stored span equals the computed
// one, else by exact span.
func (s storedNodes) lookup(id string, start, end int) *string {
	if n, ok := s.byID[id]; ok && n.Start == start && n.End == end {
		v := n.Summary
		return &v
	}
	if v, ok := s.bySpan[[2]int{start, end}]; ok {
		return &v
	}
	return nil
}

// nodeSummaries loads the stored node summaries of entry id.
func (e *Engine) nodeSummaries(ctx context.Context, id string) (storedNodes, error) {
	out := storedNodes{byID: map[string]persist.NodeSummary{}, bySpan: map[[2]int]string{}}
	ns, err := e.st.NodeSummaries(ctx, id)
	if err != nil {
		return out, err
	}
	for _, n := range ns {
		out.byID[n.NodeID] = n
		if _, dup := out.bySpan[[2]int{n.Start, n.End}]; !dup {
			out.bySpan[[2]int{n.Start, n.End}] = n.Summary
		}
	}
	return out, nil
}

// countNodeSummaries is the index_tree.node_count statistic.
func (e *Engine) countNodeSummaries(ctx context.Context, acc persist.Access) (int, error) {
	if !e.cfg.IndexTree.enabled() {
		return 0, nil
	}
	return e.st.CountNodeSummaries(ctx, acc)
}

// summaryStatus is the summary block of get_statistics.
func (e *Engine) summaryStatus(s persist.Stats) SummaryStatus {
	c := e.cfg.Summary
	st := SummaryStatus{
		Enabled: c.Enabled, Available: c.Summarizer != nil, Provider: c.Provider, Model: c.Model,
		SummaryCount:       s.SummaryCount,
		CoveragePercentage: coverage(s.SummaryCount, s.TotalEntries),
		MinContentLength:   c.minLength(),
	}
	switch {
	case !c.Enabled:
		st.Message = "Summary generation is disabled (ENABLE_SUMMARY_GENERATION=false)"
	case c.Summarizer == nil:
		st.Message = "Summary generation is enabled but no summary provider is configured"
	}
	return st
}

// indexTreeStatus is the index_tree block of get_statistics.
func (e *Engine) indexTreeStatus(ctx context.Context, acc persist.Access) (IndexTreeStatus, error) {
	n, err := e.countNodeSummaries(ctx, acc)
	return IndexTreeStatus{Enabled: e.cfg.IndexTree.enabled(), NodeCount: n}, err
}
