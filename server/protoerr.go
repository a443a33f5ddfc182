package server

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// mcp-go decodes a request into Go types before any tool runs, and when
// that fails (a number such as 1e400 that no float64 holds, a name that is
// not a string) it answers with Go's own decoder text: "unparsable
// tools/call request: json: cannot unmarshal number 1e400 into Go struct
// field CallToolRequest.params of type float64". That names Go types and
// says nothing a client can act on. mcp-go runs its request-initialization
// hooks on the raw message of every request before that decoding, on
// every transport (HTTP, stdio and an in-process client calling
// HandleMessage alike), and answers a hook's error as an invalid request
// with the error's text. So one hook tries the same decoding first and
// answers unparsableMessage instead. (Until 2026-12-03 HTTP refused such a
// request in a middleware that read the whole body a second time, and
// stdio rewrote the error line on its way out; an in-process client still
// got the decoder text.)

// unparsableMessage is the JSON-RPC error text of a request whose params
// cannot be decoded.
const unparsableMessage = "Invalid request: its params could not be read: a value has the wrong type, " +
	"or a number is outside the range of a 64-bit float (such as 1e400)"

// requestTypes are the request types mcp-go decodes each method into
// (its generated request_handler.go).
var requestTypes = map[mcp.MCPMethod]func() any{
	mcp.MethodInitialize:             func() any { return &mcp.InitializeRequest{} },
	mcp.MethodPing:                   func() any { return &mcp.PingRequest{} },
	mcp.MethodServerDiscover:         func() any { return &mcp.DiscoverRequest{} },
	mcp.MethodSubscriptionsListen:    func() any { return &mcp.SubscriptionsListenRequest{} },
	mcp.MethodSetLogLevel:            func() any { return &mcp.SetLevelRequest{} },
	mcp.MethodResourcesList:          func() any { return &mcp.ListResourcesRequest{} },
	mcp.MethodResourcesTemplatesList: func() any { return &mcp.ListResourceTemplatesRequest{} },
	mcp.MethodResourcesRead:          func() any { return &mcp.ReadResourceRequest{} },
	mcp.MethodResourcesSubscribe:     func() any { return &mcp.SubscribeRequest{} },
	mcp.MethodResourcesUnsubscribe:   func() any { return &mcp.UnsubscribeRequest{} },
	mcp.MethodPromptsList:            func() any { return &mcp.ListPromptsRequest{} },
	mcp.MethodPromptsGet:             func() any { return &mcp.GetPromptRequest{} },
	mcp.MethodToolsList:              func() any { return &mcp.ListToolsRequest{} },
	mcp.MethodToolsCall:              func() any { return &mcp.CallToolRequest{} },
	mcp.MethodTasksGet:               func() any { return &mcp.GetTaskRequest{} },
	mcp.MethodTasksList:              func() any { return &mcp.ListTasksRequest{} },
	mcp.MethodTasksResult:            func() any { return &mcp.TaskResultRequest{} },
	mcp.MethodTasksCancel:            func() any { return &mcp.CancelTaskRequest{} },
	mcp.MethodCompletionComplete:     func() any { return &mcp.CompleteRequest{} },
}

//lint:ignore ST1005 the reference server's exact message
var errUnparsable = errors.New(unparsableMessage)

// refuseUndecodable is the request-initialization hook: a request of a
// method mcp-go decodes whose message does not decode into its type gets
// errUnparsable; anything else passes.
func refuseUndecodable(_ context.Context, _ any, message any) error {
	raw, ok := message.(json.RawMessage)
	if !ok {
		return nil
	}
	var head struct {
		Method mcp.MCPMethod `json:"method"`
	}
	if json.Unmarshal(raw, &head) != nil {
		return nil
	}
	newReq, ok := requestTypes[head.Method]
	if !ok || json.Unmarshal(raw, newReq()) == nil {
		return nil
	}
	return errUnparsable
}

// protocolHooks are the server's mcp-go hooks.
func protocolHooks() *mcpserver.Hooks {
	h := &mcpserver.Hooks{}
	h.AddOnRequestInitialization(refuseUndecodable)
	return h
}
