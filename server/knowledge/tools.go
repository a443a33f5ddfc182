// Package knowledge serves the eleven knowledge tools of the knowledge API
// reference (container_create, container_list, container_delete,
// container_stats, upload_file, bulk_upload, list_files, get_document,
// delete_file, bulk_delete, search_knowledge) over an
// internal/knowledge.Service. It owns their declarations, argument
// reading and the exact output texts; the service owns the rules.
//
// Every tool answers one text block. A domain error is a normal result
// whose text starts "Error: "; search_knowledge's limit violations are
// isError results with the reference's exact message.
//
//	svc, err := knowledge.Open(ctx, eng.Persist(), eng.Embedder(), knowledge.Options{})
//	defer svc.Close()
//	srv, err := server.New(eng, server.Options{
//		Tools: append(server.ContextTools(), kt.Tools(svc)...),
//	})
package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/contextd/contextd"
	cerrors "github.com/contextd/contextd/errors"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/server"
	"github.com/mark3labs/mcp-go/mcp"
)

// Names are the knowledge tools in reference order.
var Names = []string{"container_create", "container_list", "container_delete", "container_stats",
	"upload_file", "bulk_upload", "list_files", "get_document", "delete_file", "bulk_delete", "search_knowledge"}

type kind int

const (
	reading kind = iota
	adding
	deleting
)

// param is one declared argument.
type param struct {
	name, typ, desc string
	required        bool
}

// def is one tool before it becomes a server.Tool.
type def struct {
	name, desc string
	kind       kind
	params     []param
	call       func(ctx context.Context, acc caller, a args) (*mcp.CallToolResult, error)
}

// Tools returns the eleven tools over svc, in reference order.
func Tools(svc *knowledge.Service) []server.Tool {
	h := &handlers{svc: svc}
	defs := h.defs()
	out := make([]server.Tool, len(defs))
	for i, d := range defs {
		out[i] = d.tool()
	}
	return out
}

func (d def) tool() server.Tool {
	props := map[string]any{}
	var req []string
	for _, p := range d.params {
		props[p.name] = map[string]any{"type": p.typ, "description": p.desc}
		if p.required {
			req = append(req, p.name)
		}
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(req) > 0 {
		schema["required"] = req
	}
	raw, _ := json.Marshal(schema)
	spec := mcp.NewToolWithRawSchema(d.name, d.desc, raw)
	hint := func(b bool) *bool { return &b }
	a := mcp.ToolAnnotation{OpenWorldHint: hint(false)}
	switch d.kind {
	case reading:
		a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint = hint(true), hint(false), hint(true)
	case adding:
		a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint = hint(false), hint(false), hint(false)
	case deleting:
		a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint = hint(false), hint(true), hint(true)
	}
	spec.Annotations = a
	call := d.call
	params := d.params
	return server.Tool{
		Spec:    spec,
		Writes:  d.kind != reading,
		Failure: "Failed to run " + d.name,
		Call: func(ctx context.Context, _ *contextd.Engine, raw map[string]any) (any, error) {
			p, ok := contextd.PrincipalFrom(ctx)
			if !ok || p.ID == "" {
				return nil, contextd.ErrNoPrincipal
			}
			acc := caller{Access: persist.Access{Principal: p.ID, Groups: p.Groups}, roles: p.Roles}
			a, msg := readArgs(params, raw)
			if msg != "" {
				return mcp.NewToolResultError(msg), nil
			}
			res, err := call(ctx, acc, a)
			if err != nil {
				var ce *cerrors.Error
				if errors.As(err, &ce) {
					return text("Error: " + ce.Msg), nil
				}
				return nil, err
			}
			return res, nil
		},
	}
}

func text(s string) *mcp.CallToolResult {
	return mcp.NewToolResultText(strings.TrimRight(s, " \t\r\n"))
}

// caller is the principal of a call: its access and its roles.
type caller struct {
	persist.Access
	roles []string
}

// args are a call's arguments: strings (nil when absent or null), and
// the numbers of search_knowledge.
type args struct {
	s    map[string]*string
	nums map[string]float64
}

func (a args) str(name string) string {
	if p := a.s[name]; p != nil {
		return *p
	}
	return ""
}

// readArgs reads the declared arguments. A string parameter given as
// another JSON type, or a number parameter that is not a number, is an
// isError result naming the parameter.
func readArgs(params []param, raw map[string]any) (args, string) {
	a := args{s: map[string]*string{}, nums: map[string]float64{}}
	for _, p := range params {
		v, ok := raw[p.name]
		if !ok || v == nil {
			// A missing required argument reads as empty, so each tool
			// answers with its own message ("'fileName' is required.").
			continue
		}
		switch p.typ {
		case "string":
			s, ok := v.(string)
			if !ok {
				return a, fmt.Sprintf("Parameter '%s' must be a string.", p.name)
			}
			a.s[p.name] = &s
		default:
			f, ok := number(v)
			if !ok || (p.typ == "integer" && f != math.Trunc(f)) {
				return a, fmt.Sprintf("Parameter '%s' must be %s.", p.name, map[string]string{"integer": "an integer", "number": "a number"}[p.typ])
			}
			a.nums[p.name] = f
		}
	}
	return a, ""
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x)
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil && !math.IsNaN(f)
	}
	return 0, false
}
