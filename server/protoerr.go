package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// mcp-go decodes a tools/call request into Go types before any tool runs,
// and when that fails (a number such as 1e400 that no float64 holds, a
// name that is not a string) it answers with Go's own decoder text:
// "unparsable tools/call request: json: cannot unmarshal number 1e400
// into Go struct field CallToolRequest.params of type float64". That
// names Go types and says nothing a client can act on, so both transports
// answer such a request with unparsableMessage instead: HTTP before the
// request reaches mcp-go, stdio by rewriting the error line on its way
// out.

// unparsableMessage is the JSON-RPC error text of a request whose params
// cannot be decoded.
const unparsableMessage = "Invalid request: its params could not be read: a value has the wrong type, " +
	"or a number is outside the range of a 64-bit float (such as 1e400)"

// rpcError is the shape of a JSON-RPC error response.
type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	} `json:"error"`
}

// cleanProtocolError rewrites one JSON-RPC message: an error response
// carrying mcp-go's decoder text gets unparsableMessage. ok is false when
// the line is anything else (it is then left alone).
func cleanProtocolError(line []byte) (_ []byte, ok bool) {
	if !bytes.Contains(line, []byte(`"unparsable `)) {
		return nil, false
	}
	var e rpcError
	if json.Unmarshal(line, &e) != nil || len(e.ID) == 0 || !strings.HasPrefix(e.Error.Message, "unparsable ") {
		return nil, false
	}
	e.Error.Message = unparsableMessage
	out, err := json.Marshal(e)
	if err != nil {
		return nil, false
	}
	return out, true
}

// cleanLines applies cleanProtocolError to every line of p.
func cleanLines(p []byte) []byte {
	if !bytes.Contains(p, []byte(`"unparsable `)) {
		return p
	}
	lines := bytes.Split(p, []byte{'\n'})
	for i, l := range lines {
		if c, ok := cleanProtocolError(l); ok {
			lines[i] = c
		}
	}
	return bytes.Join(lines, []byte{'\n'})
}

// refuseUnparsable answers a POSTed tools/call that mcp-go could not decode
// with the JSON-RPC error it would send, in our words; other requests go
// to next with their body intact.
func refuseUnparsable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			http.Error(w, "could not read the request body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var head struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		if json.Unmarshal(body, &head) != nil || head.Method != string(mcp.MethodToolsCall) || len(head.ID) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		var req mcp.CallToolRequest
		if json.Unmarshal(body, &req) == nil {
			next.ServeHTTP(w, r)
			return
		}
		var e rpcError
		e.JSONRPC, e.ID = mcp.JSONRPC_VERSION, head.ID
		e.Error.Code, e.Error.Message = mcp.INVALID_REQUEST, unparsableMessage
		out, _ := json.Marshal(e)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
}
