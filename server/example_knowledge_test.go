package server_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/model/hashembed"
	_ "github.com/contextd/contextd/persist/sqlite" // registers the default backend
	"github.com/contextd/contextd/server"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// Example_knowledgeTools serves all 32 tools, the context tools and the
// knowledge tools, from an engine on a SQLite file, as a program outside
// this module would: through package server and the root package only.
// An in-process MCP client lists them, creates a container, uploads a
// file and searches it once its ingestion is done.
func Example_knowledgeTools() {
	dir, _ := os.MkdirTemp("", "contextd-knowledge-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	eng, err := contextd.Open(ctx, contextd.Config{
		DBPath:    filepath.Join(dir, "ctx.db"),
		FTS:       contextd.FTSConfig{Progress: io.Discard},
		Embedding: contextd.EmbeddingConfig{Embedder: hashembed.New(64)}, // semantic search on
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	srv, err := server.New(eng, server.Options{Tools: append(server.ContextTools(), server.KnowledgeTools()...)})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.NewInProcessClient(srv.MCP())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "example", Version: "1"}}}); err != nil {
		fmt.Println(err)
		return
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		fmt.Println(err)
		return
	}
	isKnowledge := map[string]bool{}
	for _, t := range server.KnowledgeTools() {
		isKnowledge[t.Spec.Name] = true
	}
	knowledge := 0
	for _, t := range list.Tools {
		if isKnowledge[t.Name] {
			knowledge++
		}
	}
	fmt.Printf("%d tools, %d of them knowledge tools\n", len(list.Tools), knowledge)

	latency := regexp.MustCompile(` in \d+ms`)
	// call prints the lines of a tool's text answer that do not change
	// from run to run.
	call := func(tool string, args map[string]any, keep ...string) {
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: args}})
		if err != nil {
			fmt.Println(err)
			return
		}
		text := latency.ReplaceAllString(res.Content[0].(mcp.TextContent).Text, "")
		for _, line := range strings.Split(text, "\n") {
			for _, k := range keep {
				if strings.HasPrefix(line, k) {
					fmt.Println(line)
					break
				}
			}
		}
	}
	call("container_create", map[string]any{"name": "handbook"}, "Container ")
	call("upload_file", map[string]any{"containerId": "handbook", "fileName": "vault.md", "path": "/ops",
		"textContent": "# Keys\n\nThe deploy key lives in the vault."}, "File ")
	if err := eng.WaitKnowledgeIdle(ctx); err != nil { // ingestion runs in the background
		fmt.Println(err)
		return
	}
	call("search_knowledge", map[string]any{"containerId": "handbook", "query": "deploy key", "mode": "Keyword"},
		"Found ", "File: ", "Path: ", "The deploy")
	// Output:
	// 32 tools, 11 of them knowledge tools
	// Container 'handbook' created.
	// File 'vault.md' uploaded to /ops/vault.md and queued for ingestion.
	// Found 1 result(s) (mode: Keyword):
	// File: vault.md
	// Path: /ops/vault.md
	// The deploy key lives in the vault.
}
