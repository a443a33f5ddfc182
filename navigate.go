package contextd

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/index/outline"
	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// NavigateRequest is the input of navigate_context.
type NavigateRequest struct {
	ContextID            string `json:"context_id"`
	MaxDepth             int    `json:"max_depth,omitempty"` // 0 means 6
	IncludeNodeSummaries bool   `json:"include_node_summaries,omitempty"`
}

// OutlineNode is one node of a navigate_context outline.
type OutlineNode struct {
	NodeID    string         `json:"node_id"`
	Level     int            `json:"level"`
	Ordinal   int            `json:"ordinal"`
	Title     string         `json:"title"`
	CharStart int            `json:"char_start"`
	CharEnd   int            `json:"char_end"`
	Summary   *string        `json:"summary"`
	Children  []*OutlineNode `json:"children"`
}

// NavigateResponse is the result of navigate_context.
type NavigateResponse struct {
	ContextID  string       `json:"context_id"`
	TotalChars int          `json:"total_chars"`
	NodeCount  int          `json:"node_count"`
	Root       *OutlineNode `json:"root"`
	Visibility string       `json:"visibility"`
	IsOwner    bool         `json:"is_owner"`
}

// ReadRangeRequest is the input of read_context_range: exactly one of a
// character range, a line range or a node id. Nil means absent.
type ReadRangeRequest struct {
	ContextID string  `json:"context_id"`
	StartChar *int    `json:"start_char,omitempty"`
	EndChar   *int    `json:"end_char,omitempty"`
	StartLine *int    `json:"start_line,omitempty"`
	EndLine   *int    `json:"end_line,omitempty"`
	NodeID    *string `json:"node_id,omitempty"`
}

// ReadRangeResponse is the result of read_context_range: the resolved span.
type ReadRangeResponse struct {
	ContextID  string `json:"context_id"`
	StartChar  int    `json:"start_char"`
	EndChar    int    `json:"end_char"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`
	Text       string `json:"text"`
	Visibility string `json:"visibility"`
	IsOwner    bool   `json:"is_owner"`
}

// readOne resolves an id parameter and loads the readable entry, with the
// navigation tools' wording.
func (e *Engine) readOne(ctx context.Context, acc persist.Access, raw string) (*persist.Entry, error) {
	id, err := request.ResolveID(ctx, e.st, acc, raw)
	if err != nil {
		return nil, request.WrapIDErr("Invalid context ID: ", err)
	}
	ents, err := e.st.Get(ctx, acc, []string{id}, persist.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get entry: %w", err)
	}
	if len(ents) == 0 {
		return nil, newErr(ErrNotFound, "Context entry not found: %s", raw)
	}
	return &ents[0], nil
}

// Navigate returns the heading outline of one entry (navigate_context).
func (e *Engine) Navigate(ctx context.Context, req NavigateRequest) (*NavigateResponse, error) {
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	depth := req.MaxDepth
	if depth == 0 {
		depth = outline.MaxLevel
	}
	if depth < 1 || depth > outline.MaxLevel {
		return nil, invalidf("max_depth must be between 1 and 6, got %d", req.MaxDepth)
	}
	ent, err := e.readOne(ctx, acc, req.ContextID)
	if err != nil {
		return nil, err
	}
	o := outline.Parse(ent.Text)
	tree, n := o.Tree(depth)
	var attach func(id string, start, end int) *string
	if req.IncludeNodeSummaries && e.cfg.IndexTree.enabled() {
		stored, err := generate.LoadStoredNodes(ctx, e.st, ent.ID)
		if err != nil {
			return nil, err
		}
		attach = stored.Lookup
	}
	root := convertNode(tree, attach)
	root.Summary = nil
	if pyfmt.Strip(ent.Summary) != "" {
		s := ent.Summary
		root.Summary = &s
	}
	return &NavigateResponse{
		ContextID: ent.ID, TotalChars: o.Lines.TotalRunes, NodeCount: n, Root: root,
		Visibility: ent.Visibility, IsOwner: ent.Owner == p.ID,
	}, nil
}

func convertNode(n *outline.Node, attach func(id string, start, end int) *string) *OutlineNode {
	out := &OutlineNode{
		NodeID: n.ID, Level: n.Level, Ordinal: n.Ordinal, Title: n.Title,
		CharStart: n.Start, CharEnd: n.End, Children: make([]*OutlineNode, 0, len(n.Children)),
	}
	if attach != nil && n.ID != "root" {
		out.Summary = attach(n.ID, n.Start, n.End)
	}
	for _, c := range n.Children {
		out.Children = append(out.Children, convertNode(c, attach))
	}
	return out
}

// ReadRange returns part of one entry's text (read_context_range).
func (e *Engine) ReadRange(ctx context.Context, req ReadRangeRequest) (*ReadRangeResponse, error) {
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := request.CheckAddress(req.StartChar, req.EndChar, req.StartLine, req.EndLine, req.NodeID); err != nil {
		return nil, err
	}
	ent, err := e.readOne(ctx, acc, req.ContextID)
	if err != nil {
		return nil, err
	}
	sp, ok := outline.Resolve(ent.Text, outline.Address{
		StartChar: req.StartChar, EndChar: req.EndChar, StartLine: req.StartLine, EndLine: req.EndLine, NodeID: req.NodeID,
	})
	if !ok {
		return nil, invalidf("node_id '%s' did not resolve to a section in this entry (it may have changed since navigate_context was called).", *req.NodeID)
	}
	return &ReadRangeResponse{
		ContextID: ent.ID, Visibility: ent.Visibility, IsOwner: ent.Owner == p.ID,
		StartChar: sp.StartChar, EndChar: sp.EndChar, StartLine: sp.StartLine, EndLine: sp.EndLine, Text: sp.Text,
	}, nil
}
