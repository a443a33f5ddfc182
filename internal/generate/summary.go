package generate

import (
	"context"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/contextd/contextd/index/outline"
	"github.com/contextd/contextd/persist"
)

// SummaryOptions configure flat summaries (C.11). The zero value
// generates none.
type SummaryOptions struct {
	// Summarizer generates summaries; nil disables generation.
	Summarizer Summarizer
	// MinContentLength is SUMMARY_MIN_CONTENT_LENGTH; nil means 500, 0
	// summarizes every text.
	MinContentLength *int
	// Prompt is SUMMARY_PROMPT; "" uses the built-in source-specific prompts.
	Prompt string
	// MaxConcurrent is SUMMARY_MAX_CONCURRENT (default 2), shared with
	// node summaries.
	MaxConcurrent int
}

// MinLength is the shortest text, in code points, that gets a summary.
func (o SummaryOptions) MinLength() int {
	if o.MinContentLength == nil {
		return 500
	}
	return *o.MinContentLength
}

// NodeOptions configure index-tree node summaries (C.12, R-405), the
// INDEX_TREE_NODE_SUMMARY_* settings. The zero value enables them with the
// documented defaults (they still need a Summarizer): the built-in prompt,
// sections of at least 500 code points, 240s per node and 600s for all
// nodes of an entry, min(cpu, 4) nodes at once, at most 200 nodes.
type NodeOptions struct {
	Disabled                bool // ENABLE_INDEX_TREE_NODE_SUMMARIES=false
	Prompt                  string
	MinContentLength        *int
	Timeout, TotalTimeout   time.Duration
	MaxConcurrent, MaxNodes int
}

func (c NodeOptions) withDefaults() NodeOptions {
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
	if c.Prompt == "" {
		c.Prompt = nodeSummaryPrompt
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
func (g *Generator) summaryPrompt(source string) string {
	if g.opts.Summary.Prompt != "" {
		return g.opts.Summary.Prompt
	}
	if source == "agent" {
		return agentSummaryPrompt
	}
	return userSummaryPrompt
}

// generateNodes summarizes the qualifying sections of the text. It
// reports replace=false only when every attempted node failed on a new
// entry, which leaves existing rows alone.
func (g *Generator) generateNodes(ctx context.Context, job Job) ([]persist.NodeSummary, bool) {
	cfg := g.opts.Nodes.withDefaults()
	o := outline.Parse(job.Text)
	var cands []outline.Heading
	for _, h := range o.Headings {
		if h.End-h.Start >= *cfg.MinContentLength {
			cands = append(cands, h)
		}
	}
	if len(cands) == 0 {
		return nil, true
	}
	// Shallowest first, then longest, up to the cap.
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].Level != cands[j].Level {
			return cands[i].Level < cands[j].Level
		}
		return cands[i].End-cands[i].Start > cands[j].End-cands[j].Start
	})
	if len(cands) > cfg.MaxNodes {
		cands = cands[:cfg.MaxNodes]
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.TotalTimeout)
	defer cancel()
	out := make([]*persist.NodeSummary, len(cands))
	limit := make(chan struct{}, cfg.MaxConcurrent)
	var wg sync.WaitGroup
	for i, h := range cands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			limit <- struct{}{}
			defer func() { <-limit }()
			nctx, ncancel := context.WithTimeout(ctx, cfg.Timeout)
			defer ncancel()
			s, err := g.summarize(nctx, cfg.Prompt, o.Lines.Slice(h.Start, h.End))
			if err != nil || s == "" {
				return
			}
			out[i] = &persist.NodeSummary{NodeID: h.ID, Start: h.Start, End: h.End, Summary: s}
		}()
	}
	wg.Wait()
	var nodes []persist.NodeSummary
	for _, n := range out {
		if n != nil {
			nodes = append(nodes, *n)
		}
	}
	if len(nodes) == 0 && !job.Update {
		return nil, false
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Start < nodes[j].Start })
	return nodes, true
}

// StoredNodes is the stored node summaries of one entry, for attaching
// them to a freshly computed outline.
type StoredNodes struct {
	byID   map[string]persist.NodeSummary
	bySpan map[[2]int]string
}

// LoadStoredNodes loads the stored node summaries of entry id.
func LoadStoredNodes(ctx context.Context, st persist.NodeSummaryReader, id string) (StoredNodes, error) {
	ns, err := st.NodeSummaries(ctx, id)
	if err != nil {
		return newStoredNodes(nil), err
	}
	return newStoredNodes(ns), nil
}

func newStoredNodes(ns []persist.NodeSummary) StoredNodes {
	out := StoredNodes{byID: map[string]persist.NodeSummary{}, bySpan: map[[2]int]string{}}
	for _, n := range ns {
		out.byID[n.NodeID] = n
		if _, dup := out.bySpan[[2]int{n.Start, n.End}]; !dup {
			out.bySpan[[2]int{n.Start, n.End}] = n.Summary
		}
	}
	return out
}

// Lookup attaches by node id when the stored span equals the computed
// one, else by exact span.
func (s StoredNodes) Lookup(id string, start, end int) *string {
	if n, ok := s.byID[id]; ok && n.Start == start && n.End == end {
		v := n.Summary
		return &v
	}
	if v, ok := s.bySpan[[2]int{start, end}]; ok {
		return &v
	}
	return nil
}
