package persist

import "context"

// NodeSummary is the stored summary of one outline section of an entry
// (index_tree node summaries). Start and End are the code-point span the
// summary was generated for: a reader attaches it to a node only when the
// span still matches.
type NodeSummary struct {
	NodeID     string
	Start, End int
	Summary    string
}

// NodeSummaryReader reads stored node summaries (part of Store).
type NodeSummaryReader interface {
	// NodeSummaries returns the node summaries of entry id, by node id.
	NodeSummaries(ctx context.Context, id string) ([]NodeSummary, error)
	// CountNodeSummaries counts the node summaries of readable entries.
	CountNodeSummaries(ctx context.Context, acc Access) (int, error)
}

// NodeSummaryWriter replaces the node summaries of an entry inside a Tx
// (part of Tx).
type NodeSummaryWriter interface {
	ReplaceNodeSummaries(ctx context.Context, id string, nodes []NodeSummary) error
}
