// Package mcpstdio is the client side of the shortest useful MCP session
// over stdio: initialize, notifications/initialized, then tools/list page
// by page. contextd docs uses it to document the tools the server really
// serves, and the release program to check a built binary.
package mcpstdio

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ListTools speaks to a server whose stdin is in and whose stdout is out
// and returns every tool of tools/list, each as the JSON object the server
// sent. client names the caller in initialize. It reads until it has its
// answers; the caller closes in (which ends a stdio server) afterwards.
func ListTools(in io.Writer, out io.Reader, client string) ([]json.RawMessage, error) {
	lines := bufio.NewScanner(out)
	lines.Buffer(make([]byte, 0, 1<<20), 64<<20)
	send := func(msg string) error { _, err := io.WriteString(in, msg+"\n"); return err }
	// await returns the result of the response with id, skipping
	// notifications and other responses.
	await := func(id int) (json.RawMessage, error) {
		for lines.Scan() {
			var resp struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(lines.Bytes(), &resp) != nil || resp.ID == nil || *resp.ID != id {
				continue
			}
			if resp.Error != nil {
				return nil, errors.New(resp.Error.Message)
			}
			return resp.Result, nil
		}
		return nil, ErrNoAnswer
	}
	name, _ := json.Marshal(client)
	if err := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":` + string(name) + `,"version":"1"}}}`); err != nil {
		return nil, err
	}
	if _, err := await(1); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, err
	}
	var tools []json.RawMessage
	cursor := ""
	for id := 2; id < maxPages+2; id++ {
		params := "{}"
		if cursor != "" {
			b, _ := json.Marshal(map[string]string{"cursor": cursor})
			params = string(b)
		}
		if err := send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, id, params)); err != nil {
			return nil, err
		}
		raw, err := await(id)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, page.Tools...)
		if cursor = page.NextCursor; cursor == "" {
			return tools, nil
		}
	}
	return nil, fmt.Errorf("tools/list: more than %d pages", maxPages)
}

// maxPages bounds the tools/list pages read, against a server whose
// cursor never ends.
const maxPages = 100

// ErrNoAnswer: the server's output ended before the answer.
var ErrNoAnswer = errors.New("the server ended without answering")

// FirstSentence is the first sentence (or line) of a tool description.
func FirstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}
