package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/cerrors"
	"github.com/mark3labs/mcp-go/mcp"
)

// handle runs one call of t: principal, write check, arguments, the call,
// result shaping. It never returns a Go error: every failure is a tool
// result with isError set.
func (s *Server) handle(ctx context.Context, t *Tool, req mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("tool panicked", "tool", t.Spec.Name, "panic", r, "stack", string(debug.Stack()))
			res = s.failed(t, fmt.Errorf("internal error: %v", r))
		}
	}()
	if p, ok := contextd.PrincipalFrom(ctx); !ok || p.ID == "" {
		ctx = contextd.WithPrincipal(ctx, contextd.Principal{ID: s.principal})
	}
	if t.Writes {
		if err := s.eng.CheckWritable(ctx, t.Spec.Name); err != nil {
			return s.failed(t, err), nil
		}
	}
	raw := req.Params.Arguments
	if m, ok := takeArguments(ctx); ok {
		raw = m // decoded before mcp-go (bigcall.go)
	} else if m, ok := textPreservingArguments(req.Params.RawArguments); ok {
		raw = m
	} else if m, ok := exactArguments(req.Params.RawArguments); ok {
		raw = m
	}
	in, err := argumentMap(raw)
	if err != nil {
		return s.failed(t, err), nil
	}
	ctx, release, refused := s.admit(ctx, t.Spec.Name, in)
	if refused != nil {
		return refused, nil
	}
	defer release()
	v, err := t.Call(ctx, s.eng, in)
	if err != nil {
		if r := s.timedOut(ctx, t); r != nil {
			return r, nil
		}
		return s.failed(t, err), nil
	}
	// What the caller was told only generically goes to the log in full.
	switch r := v.(type) {
	case *contextd.BatchResponse:
		for i := 0; r != nil && i < len(r.Results); i++ {
			if c := r.Results[i].Cause; c != nil {
				s.log.Error("batch item failed", "tool", t.Spec.Name, "index", i, "error", c)
			}
		}
	case *contextd.HybridSearchResponse:
		for i := 0; r != nil && i < len(r.Causes); i++ {
			s.log.Warn("hybrid search leg failed", "tool", t.Spec.Name, "error", r.Causes[i])
		}
	}
	if r, ok := v.(*mcp.CallToolResult); ok && r != nil {
		return r, nil // a tool that shapes its own result (plain text)
	}
	if isNil(v) {
		if !t.Array {
			return s.failed(t, errors.New("the engine returned no result")), nil
		}
		v = []any{}
	}
	text, err := marshalJSON(v)
	if err != nil {
		return s.failed(t, fmt.Errorf("encode result: %w", err)), nil
	}
	if t.Array {
		return mcp.NewToolResultStructured(map[string]any{"result": json.RawMessage(text)}, string(text)), nil
	}
	return mcp.NewToolResultStructured(json.RawMessage(text), string(text)), nil
}

// unexpectedText replaces the text of an unexpected failure: it may be a
// driver's or a package's message (a table name, a constraint, a Go type),
// which says nothing useful to a caller and something to an attacker. The
// detail goes to the log instead.
const unexpectedText = cerrors.UnexpectedText

// What a caller is told about a write the storage refused: the cause in
// fixed words (the driver's text stays in the log), and that the write
// changed nothing, so a retry after the cause is fixed is safe.
const (
	storageFullText = "the database's disk is full (or its file size limit was reached); nothing was written, the stored data is intact and still readable"
	storageIOText   = "the database file could not be written (I/O error: disk full, file size limit or a failing disk); nothing was written, the stored data is intact and still readable"
	busyText        = "the database is locked by another process (waited for SQLITE_BUSY_TIMEOUT_MS); nothing was written, retry later"
)

// failed maps an error to a tool error result: engine errors and argument
// errors carry the reference text as is; anything else is unexpected:
// logged in full and answered with the tool's failure prefix and
// a generic text, or the context's own reason when the call was cancelled
// or timed out.
func (s *Server) failed(t *Tool, err error) *mcp.CallToolResult {
	var ce *contextd.Error
	var ae *argError
	switch {
	case errors.As(err, &ce):
		s.log.Debug("tool error", "tool", t.Spec.Name, "error", err)
		return mcp.NewToolResultError(err.Error())
	case errors.As(err, &ae):
		s.log.Debug("invalid arguments", "tool", t.Spec.Name, "param", ae.Param, "error", ae.Msg)
		return mcp.NewToolResultError(err.Error())
	}
	s.log.Error("tool failed", "tool", t.Spec.Name, "error", err)
	switch {
	case errors.Is(err, context.Canceled):
		return mcp.NewToolResultError(t.Failure + ": the request was cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return mcp.NewToolResultError(t.Failure + ": the request timed out")
	case errors.Is(err, contextd.ErrStorageFull):
		return mcp.NewToolResultError(t.Failure + ": " + storageFullText)
	case errors.Is(err, contextd.ErrStorageIO):
		return mcp.NewToolResultError(t.Failure + ": " + storageIOText)
	case errors.Is(err, contextd.ErrBusy):
		return mcp.NewToolResultError(t.Failure + ": " + busyText)
	case errors.Is(err, contextd.ErrDatabaseUnavailable):
		return mcp.NewToolResultError(t.Failure + ": " + cerrors.UnavailableText)
	}
	return mcp.NewToolResultError(t.Failure + ": " + unexpectedText)
}

// marshalJSON encodes v without HTML escaping (text such as <mark> stays
// readable) and without the trailing newline.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
