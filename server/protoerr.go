package server

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

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
	if head.Method == mcp.MethodToolsCall {
		newReq = func() any { return &callToolCheck{} }
	}
	if !ok || json.Unmarshal(raw, newReq()) == nil {
		return nil
	}
	return errUnparsable
}

// callToolCheck decodes like mcp.CallToolRequest, except that its
// arguments are checked, not copied twice and decoded: a large call
// (sixteen texts of 10 MiB) was otherwise held three more times by this
// check alone. Decoding the arguments into an interface fails only on a
// number that no float64 holds (the message is valid JSON by then).
type callToolCheck struct {
	Method string          `json:"method"`
	Params callParamsCheck `json:"params"`
}

// callParamsCheck mirrors mcp.CallToolParams's UnmarshalJSON: the params
// decoded with the arguments kept raw (the last of duplicates wins), then
// the arguments decoded, which fails as that would.
type callParamsCheck struct{}

func (*callParamsCheck) UnmarshalJSON(b []byte) error {
	var p struct {
		Name      string          `json:"name"`
		Arguments borrowedJSON    `json:"arguments"`
		Meta      *mcp.Meta       `json:"_meta,omitempty"`
		Task      *mcp.TaskParams `json:"task,omitempty"`
		mcp.MultiRoundTripParams
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	return checkNumbers(p.Arguments)
}

// borrowedJSON is a value's bytes within the message being decoded, not
// a copy: valid only while that message is.
type borrowedJSON []byte

func (r *borrowedJSON) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

// checkNumbers refuses a JSON value holding a number that strconv's
// float64 parsing (encoding/json's) refuses.
func checkNumbers(b []byte) error {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case c == '-' || c >= '0' && c <= '9':
			j := i
			for j < len(b) && (b[j] == '-' || b[j] == '+' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] >= '0' && b[j] <= '9') {
				j++
			}
			if _, err := strconv.ParseFloat(string(b[i:j]), 64); err != nil {
				return err
			}
			i = j - 1
		}
	}
	return nil
}

// protocolHooks are the server's mcp-go hooks.
func protocolHooks() *mcpserver.Hooks {
	h := &mcpserver.Hooks{}
	h.AddOnRequestInitialization(refuseUndecodable)
	return h
}
