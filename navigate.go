package contextd

import (
	"context"

	"github.com/contextd/contextd/internal/navigate"
)

// reader reads single entries for the navigation tools (internal/navigate).
func (e *Engine) reader() navigate.Reader {
	return navigate.Reader{Store: e.st, NodeSummaries: e.cfg.IndexTree.enabled()}
}

// Navigate returns the heading outline of one entry (navigate_context).
func (e *Engine) Navigate(ctx context.Context, req NavigateRequest) (*NavigateResponse, error) {
	_, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	return e.reader().Outline(ctx, acc, req)
}

// ReadRange returns part of one entry's text (read_context_range).
func (e *Engine) ReadRange(ctx context.Context, req ReadRangeRequest) (*ReadRangeResponse, error) {
	_, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	return e.reader().Range(ctx, acc, req)
}
