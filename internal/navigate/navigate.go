// Package navigate serves the navigation tools over one readable entry:
// navigate_context (the heading outline, index/outline, with the stored
// node summaries of internal/generate) and read_context_range (a span by
// characters, lines or node id).
//
//	out, err := navigate.Reader{Store: st, NodeSummaries: true}.Outline(ctx, acc, caller, req)
package navigate

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/api"
	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/outline"
	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// Reader reads entries of a store for the navigation tools.
type Reader struct {
	Store persist.Store
	// NodeSummaries is ENABLE_INDEX_TREE_NODE_SUMMARIES: an outline may
	// carry the stored node summaries.
	NodeSummaries bool
}

// readOne resolves an id parameter and loads the readable entry, with the
// navigation tools' wording.
func (r Reader) readOne(ctx context.Context, acc persist.Access, raw string) (*persist.Entry, error) {
	id, err := request.ResolveID(ctx, r.Store, acc, raw)
	if err != nil {
		return nil, request.WrapIDErr("Invalid context ID: ", err)
	}
	ents, err := r.Store.Get(ctx, acc, []string{id}, persist.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get entry: %w", err)
	}
	if len(ents) == 0 {
		return nil, cerrors.New(cerrors.ErrNotFound, "Context entry not found: %s", raw)
	}
	return &ents[0], nil
}

// Outline returns the heading outline of one entry (navigate_context) for
// the caller of access acc.
func (r Reader) Outline(ctx context.Context, acc persist.Access, req api.NavigateRequest) (*api.NavigateResponse, error) {
	depth := req.MaxDepth
	if depth == 0 {
		depth = outline.MaxLevel
	}
	if depth < 1 || depth > outline.MaxLevel {
		return nil, cerrors.Invalidf("max_depth must be between 1 and 6, got %d", req.MaxDepth)
	}
	ent, err := r.readOne(ctx, acc, req.ContextID)
	if err != nil {
		return nil, err
	}
	o := outline.Parse(ent.Text)
	tree, n := o.Tree(depth)
	var attach func(id string, start, end int) *string
	if req.IncludeNodeSummaries && r.NodeSummaries {
		stored, err := generate.LoadStoredNodes(ctx, r.Store, ent.ID)
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
	return &api.NavigateResponse{
		ContextID: ent.ID, TotalChars: o.Lines.TotalRunes, NodeCount: n, Root: root,
		Visibility: ent.Visibility, IsOwner: ent.Owner == acc.Principal,
	}, nil
}

func convertNode(n *outline.Node, attach func(id string, start, end int) *string) *api.OutlineNode {
	out := &api.OutlineNode{
		NodeID: n.ID, Level: n.Level, Ordinal: n.Ordinal, Title: n.Title,
		CharStart: n.Start, CharEnd: n.End, Children: make([]*api.OutlineNode, 0, len(n.Children)),
	}
	if attach != nil && n.ID != "root" {
		out.Summary = attach(n.ID, n.Start, n.End)
	}
	for _, c := range n.Children {
		out.Children = append(out.Children, convertNode(c, attach))
	}
	return out
}

// Range returns part of one entry's text (read_context_range) for the
// caller of access acc.
func (r Reader) Range(ctx context.Context, acc persist.Access, req api.ReadRangeRequest) (*api.ReadRangeResponse, error) {
	if err := request.CheckAddress(req.StartChar, req.EndChar, req.StartLine, req.EndLine, req.NodeID); err != nil {
		return nil, err
	}
	ent, err := r.readOne(ctx, acc, req.ContextID)
	if err != nil {
		return nil, err
	}
	sp, ok := outline.Resolve(ent.Text, outline.Address{
		StartChar: req.StartChar, EndChar: req.EndChar, StartLine: req.StartLine, EndLine: req.EndLine, NodeID: req.NodeID,
	})
	if !ok {
		return nil, cerrors.Invalidf("node_id '%s' did not resolve to a section in this entry (it may have changed since navigate_context was called).", *req.NodeID)
	}
	return &api.ReadRangeResponse{
		ContextID: ent.ID, Visibility: ent.Visibility, IsOwner: ent.Owner == acc.Principal,
		StartChar: sp.StartChar, EndChar: sp.EndChar, StartLine: sp.StartLine, EndLine: sp.EndLine, Text: sp.Text,
	}, nil
}
