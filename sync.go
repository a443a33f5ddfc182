package contextd

import (
	"context"

	"github.com/contextd/contextd/internal/syncplan"
)

// The corpus sync tools (plan_context_sync, list_ingest_state); package
// internal/syncplan owns the rules.

// PlanSync compares a corpus manifest with the caller's managed entries
// of a thread (plan_context_sync); it writes nothing.
func (e *Engine) PlanSync(ctx context.Context, req PlanSyncRequest) (*PlanSyncResponse, error) {
	_, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	return syncplan.New(e.st).Plan(ctx, acc, req)
}

// ListIngestState pages through the caller's managed entries of a thread
// (list_ingest_state).
func (e *Engine) ListIngestState(ctx context.Context, req IngestStateRequest) (*IngestStatePage, error) {
	_, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	return syncplan.New(e.st).List(ctx, acc, req)
}
