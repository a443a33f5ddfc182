package contextd

import (
	"time"

	"github.com/contextd/contextd/model"
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
