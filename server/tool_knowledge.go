package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/cerrors"
	"github.com/mark3labs/mcp-go/mcp"
)

// KnowledgeTools returns the eleven knowledge tools of the knowledge API
// reference in its order (container_create, container_list,
// container_delete, container_stats, upload_file, bulk_upload,
// list_files, get_document, delete_file, bulk_delete, search_knowledge),
// over the engine's knowledge methods. Options.Tools nil serves
// ContextTools only; serve all 32 with
//
//	server.Options{Tools: append(server.ContextTools(), server.KnowledgeTools()...)}
func KnowledgeTools() []Tool { return toolsOf(knowledgeTools()) }

func knowledgeTools() []*toolDef {
	return []*toolDef{
		containerCreateTool(),
		containerListTool(),
		containerDeleteTool(),
		containerStatsTool(),
		uploadFileTool(),
		bulkUploadTool(),
		listFilesTool(),
		getDocumentTool(),
		deleteFileTool(),
		bulkDeleteTool(),
		searchKnowledgeTool(),
	}
}

// knowledgeTool declares one knowledge tool. Its arguments are read by
// decodeExact (the reference's "Parameter 'x' must be a string."), and
// it answers one text block: run's text with trailing white space
// trimmed, or, for a refusal of the engine (an *Error), a normal result
// "Error: <message>". run may shape its own result instead.
func knowledgeTool(name, desc string, kind toolKind, params []param,
	run func(ctx context.Context, eng *contextd.Engine, a args) (any, error)) *toolDef {
	return &toolDef{
		name: name, desc: desc, kind: kind, writes: kind != readOnly,
		failure: "Failed to run " + name, params: params, exactTypes: true,
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			v, err := run(ctx, eng, a)
			var ce *cerrors.Error
			switch {
			case errors.As(err, &ce):
				return knowledgeText("Error: " + ce.Msg), nil
			case err != nil:
				return nil, err
			}
			if s, ok := v.(string); ok {
				return knowledgeText(s), nil
			}
			return v, nil
		},
	}
}

func knowledgeText(s string) *mcp.CallToolResult {
	return mcp.NewToolResultText(strings.TrimRight(s, " \t\r\n"))
}

// knowledgeTime is .NET's "u" format of a UTC time.
const knowledgeTime = "2006-01-02 15:04:05Z"

// n0 is .NET's N0: thousands separated by commas.
func n0(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// containerIDParam is the containerId of every tool but container_create
// (search_knowledge words it its own way).
var containerIDParam = param{name: "containerId", typ: tString, required: true, desc: "Container ID (UUID) or name"}

func containerCreateTool() *toolDef {
	return knowledgeTool("container_create",
		"Create a new container for organizing documents. Use when setting up a new knowledge domain or project.", additive,
		[]param{
			{name: "name", typ: tString, required: true, desc: "Container name (lowercase alphanumeric and hyphens, 2-128 chars)"},
			{name: "description", typ: tString, desc: "Optional description for the container"},
		},
		func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			c, err := eng.CreateKnowledgeContainer(ctx, contextd.KnowledgeCreateRequest{Name: a.str("name"), Description: a.str("description")})
			if err != nil {
				return nil, err
			}
			return fmt.Sprintf("Container '%s' created.\n\nID: %s", c.Name, c.ID), nil
		})
}

func containerListTool() *toolDef {
	return knowledgeTool("container_list",
		"Lists every searchable knowledge scope. Use to discover what exists when the target is unknown; if the user already named one, call search_knowledge on it directly.", readOnly,
		nil,
		func(ctx context.Context, eng *contextd.Engine, _ args) (any, error) {
			list, err := eng.ListKnowledgeContainers(ctx)
			if err != nil {
				return nil, err
			}
			if len(list) == 0 {
				return "No containers found.", nil
			}
			var b strings.Builder
			fmt.Fprintf(&b, "Found %d knowledge scope(s):\n\n", len(list))
			for _, c := range list {
				fmt.Fprintf(&b, "- %s [%s] (%d files)", c.Name, c.Kind, c.Files)
				if c.Description != "" {
					fmt.Fprintf(&b, " \u2014 %s", c.Description)
				}
				fmt.Fprintf(&b, "\n  ID: %s\n", c.ID)
			}
			return b.String(), nil
		})
}

func containerDeleteTool() *toolDef {
	return knowledgeTool("container_delete",
		"Delete a container. It must be emptied first, because deleting one deletes its stored files. External sources are not containers and cannot be deleted here.", deleting,
		[]param{containerIDParam},
		func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			in := a.str("containerId")
			if err := eng.DeleteKnowledgeContainer(ctx, contextd.KnowledgeContainerRequest{Container: in}); err != nil {
				return nil, err
			}
			return fmt.Sprintf("Container '%s' deleted.", in), nil
		})
}

func containerStatsTool() *toolDef {
	return knowledgeTool("container_stats",
		"Get container statistics: document counts, chunk count, storage size, and embedding model info.", readOnly,
		[]param{containerIDParam},
		func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			st, err := eng.DescribeKnowledgeContainer(ctx, contextd.KnowledgeContainerRequest{Container: a.str("containerId")})
			if err != nil {
				return nil, err
			}
			var b strings.Builder
			fmt.Fprintf(&b, "Container: %s\nDocuments: %d", st.Container.Name, st.Documents)
			if st.Processing > 0 || st.Failed > 0 {
				fmt.Fprintf(&b, " (%d ready, %d processing, %d failed)", st.Ready, st.Processing, st.Failed)
			}
			fmt.Fprintf(&b, "\nChunks: %s\nStorage: %s\n", n0(int64(st.Chunks)), contextd.FormatKnowledgeBytes(st.Bytes))
			if st.Vectors > 0 {
				fmt.Fprintf(&b, "Embedding model: %s (%d dims, %s vectors)\n", st.Model, st.Dims, n0(int64(st.Vectors)))
			} else {
				b.WriteString("Embedding model: none\n")
			}
			if st.LastIndexed.IsZero() {
				b.WriteString("Last indexed: never\n")
			} else {
				fmt.Fprintf(&b, "Last indexed: %s\n", st.LastIndexed.UTC().Format(knowledgeTime))
			}
			fmt.Fprintf(&b, "Created: %s", st.Container.CreatedAt.UTC().Format(knowledgeTime))
			return b.String(), nil
		})
}
