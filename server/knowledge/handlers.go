package knowledge

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	cerrors "github.com/contextd/contextd/errors"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/mark3labs/mcp-go/mcp"
)

// timeLayout is .NET's "u" format of a UTC time.
const timeLayout = "2006-01-02 15:04:05Z"

type handlers struct{ svc *knowledge.Service }

func (h *handlers) defs() []def {
	cid := param{"containerId", "string", "Container ID (UUID) or name", true}
	return []def{
		{"container_create", "Create a new container for organizing documents. Use when setting up a new knowledge domain or project.", adding,
			[]param{{"name", "string", "Container name (lowercase alphanumeric and hyphens, 2-128 chars)", true},
				{"description", "string", "Optional description for the container", false}}, h.create},
		{"container_list", "Lists every searchable knowledge scope. Use to discover what exists when the target is unknown; if the user already named one, call search_knowledge on it directly.", reading,
			nil, h.list},
		{"container_delete", "Delete a container. It must be emptied first, because deleting one deletes its stored files. External sources are not containers and cannot be deleted here.", deleting,
			[]param{cid}, h.delete},
		{"container_stats", "Get container statistics: document counts, chunk count, storage size, and embedding model info.", reading,
			[]param{cid}, h.stats},
		{"upload_file", "Upload a file to be parsed, chunked, embedded, and made searchable. Provide either 'content' (base64) or 'textContent' (raw text), not both.", adding,
			[]param{cid,
				{"content", "string", "Base64-encoded file content. For binary files (PDF, DOCX, images). Mutually exclusive with textContent.", false},
				{"textContent", "string", "Raw text content for text-based files (Markdown, TXT, CSV, JSON, etc.). Mutually exclusive with content.", false},
				{"fileName", "string", "Original file name with extension", true},
				{"path", "string", "Destination folder path (e.g., '/docs/2026/'). Default: /", false},
				{"strategy", "string", "Chunking strategy: Semantic, FixedSize, or Recursive. Default: Semantic", false}}, h.upload},
		{"bulk_upload", "Upload up to 100 files in one call. Each file is parsed, chunked, and embedded. Returns per-file results.", adding,
			[]param{cid, {"files", "string", `JSON array of file objects. Each object: {"filename":"name.txt", "content":"...", "encoding":"text|base64", "folderPath":"/optional/"}. Max 100.`, true}}, h.bulkUpload},
		{"list_files", "List files and folders at a path within a container. Use to browse container contents before retrieving documents.", reading,
			[]param{cid, {"path", "string", "Folder path to list (default: root '/')", false}}, h.listFiles},
		{"get_document", "Retrieve a document's full text by ID or path. Returns extracted text for binary formats (PDF, DOCX, PPTX).", reading,
			[]param{cid, {"fileId", "string", "Document ID (UUID) or virtual path (e.g., '/docs/readme.md')", true}}, h.getDocument},
		{"delete_file", "Delete a file and all its chunks and vectors. To update a file, delete it first then re-upload with upload_file.", deleting,
			[]param{cid, {"fileId", "string", "File (document) ID to delete", true}}, h.deleteFile},
		{"bulk_delete", "Delete up to 100 files in one call. Returns per-file success/failure results.", deleting,
			[]param{cid, {"fileIds", "string", `JSON array of file (document) IDs to delete, e.g. ["id1","id2"]. Max 100.`, true}}, h.bulkDelete},
		{"search_knowledge", "Search a container using semantic, keyword, or hybrid mode. Returns ranked document chunks with scores. Use when answering questions from stored knowledge.", reading,
			[]param{{"query", "string", "The search query text", true},
				{"containerId", "string", "Container ID (UUID) or name to search within", true},
				{"mode", "string", "Search mode: Semantic (vector), Keyword (full-text), or Hybrid (both). Default: Hybrid", false},
				{"topK", "integer", "Number of results to return. Default: 10", false},
				{"path", "string", "Filter results to a folder subtree (e.g., '/docs/')", false},
				{"minScore", "number", "Minimum similarity score threshold (0.0-1.0). Defaults to server setting.", false}}, h.search},
	}
}

func (h *handlers) create(ctx context.Context, acc caller, a args) (*mcp.CallToolResult, error) {
	c, err := h.svc.Create(ctx, acc.Access, acc.roles, a.str("name"), a.str("description"))
	if err != nil {
		return nil, err
	}
	return text(fmt.Sprintf("Container '%s' created.\n\nID: %s", c.Name, knowledge.FormatID(c.ID))), nil
}

func (h *handlers) list(ctx context.Context, acc caller, _ args) (*mcp.CallToolResult, error) {
	list, err := h.svc.List(ctx, acc.Access)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return text("No containers found."), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d knowledge scope(s):\n\n", len(list))
	for _, c := range list {
		fmt.Fprintf(&b, "- %s [%s] (%d files)", c.Name, c.Kind, c.Files)
		if c.Description != "" {
			fmt.Fprintf(&b, " \u2014 %s", c.Description)
		}
		fmt.Fprintf(&b, "\n  ID: %s\n", knowledge.FormatID(c.ID))
	}
	return text(b.String()), nil
}

func (h *handlers) delete(ctx context.Context, acc caller, a args) (*mcp.CallToolResult, error) {
	in := a.str("containerId")
	if err := h.svc.DeleteContainer(ctx, acc.Access, in); err != nil {
		return nil, err
	}
	return text(fmt.Sprintf("Container '%s' deleted.", in)), nil
}

func (h *handlers) stats(ctx context.Context, acc caller, a args) (*mcp.CallToolResult, error) {
	c, err := h.svc.Resolve(ctx, acc.Access, a.str("containerId"))
	if err != nil {
		return nil, err
	}
	st, err := h.svc.Stats(ctx, acc.Access, c)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Container: %s\nDocuments: %d", c.Name, st.Documents)
	if st.Processing > 0 || st.Failed > 0 {
		fmt.Fprintf(&b, " (%d ready, %d processing, %d failed)", st.Ready, st.Processing, st.Failed)
	}
	fmt.Fprintf(&b, "\nChunks: %s\nStorage: %s\n", n0(int64(st.Chunks)), knowledge.FormatBytes(st.Bytes))
	if st.Vectors > 0 {
		fmt.Fprintf(&b, "Embedding model: %s (%d dims, %s vectors)\n", st.Model, st.Dims, n0(int64(st.Vectors)))
	} else {
		b.WriteString("Embedding model: none\n")
	}
	if st.LastIndexed.IsZero() {
		b.WriteString("Last indexed: never\n")
	} else {
		fmt.Fprintf(&b, "Last indexed: %s\n", st.LastIndexed.UTC().Format(timeLayout))
	}
	fmt.Fprintf(&b, "Created: %s", c.CreatedAt.UTC().Format(timeLayout))
	return text(b.String()), nil
}

func (h *handlers) upload(ctx context.Context, acc caller, a args) (*mcp.CallToolResult, error) {
	name := a.str("fileName")
	content, textContent := a.s["content"], a.s["textContent"]
	switch {
	case name == "":
		return text("Error: 'fileName' is required."), nil
	case !knowledge.ValidFileName(name):
		return text(fmt.Sprintf("Error: invalid filename '%s' \u2014 must not contain path separators or '..' segments.", name)), nil
	case !knowledge.Supported(knowledge.Ext(name)):
		return text(fmt.Sprintf("Error: file type '%s' is not supported. Supported types: %s", knowledge.Ext(name), knowledge.SupportedList())), nil
	case content != nil && textContent != nil:
		return text("Error: Provide either 'content' or 'textContent', not both."), nil
	case content == nil && textContent == nil:
		return text("Error: Provide either 'content' (base64) or 'textContent' (raw text)."), nil
	}
	c, err := h.svc.ResolveWritable(ctx, acc.Access, a.str("containerId"))
	if err != nil {
		return nil, err
	}
	var data []byte
	if content != nil {
		if data, err = decodeBase64(*content); err != nil {
			return text("Error: 'content' must be valid base64-encoded data."), nil
		}
	} else {
		data = []byte(*textContent)
	}
	up, err := h.svc.Upload(ctx, acc.Access, c, knowledge.File{Name: name, Folder: a.str("path"), Data: data, Strategy: a.str("strategy")})
	if err != nil {
		return nil, err
	}
	return text(fmt.Sprintf("File '%s' uploaded to %s and queued for ingestion.\n\nDocument ID: %s\nJob ID: %s\n\nThe file will be parsed, chunked, and embedded in the background.",
		name, up.Path, knowledge.FormatID(up.DocumentID), up.JobID)), nil
}

// decodeBase64 reads standard base64 with padding, skipping whitespace
// as .NET's Convert.FromBase64String does.
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, s)
	return base64.StdEncoding.DecodeString(s)
}

// bulkFile is one item of bulk_upload's files, read with case-insensitive
// keys.
type bulkFile struct {
	Filename   *string `json:"filename"`
	Content    *string `json:"content"`
	Encoding   *string `json:"encoding"`
	FolderPath *string `json:"folderPath"`
}

func (h *handlers) bulkUpload(ctx context.Context, acc caller, a args) (*mcp.CallToolResult, error) {
	var files []bulkFile
	if err := json.Unmarshal([]byte(a.str("files")), &files); err != nil {
		return text("Error: 'files' must be a valid JSON array of file objects."), nil
	}
	switch {
	case len(files) == 0:
		return text("Error: 'files' array must not be empty."), nil
	case len(files) > 100:
		return text("Error: Maximum 100 files per bulk_upload call."), nil
	}
	c, err := h.svc.ResolveWritable(ctx, acc.Access, a.str("containerId"))
	if err != nil {
		return nil, err
	}
	var transport, service []string
	ok := 0
	for i, f := range files {
		label := fmt.Sprintf("item[%d]", i)
		if f.Filename != nil {
			label = *f.Filename
		}
		switch {
		case f.Filename == nil || strings.TrimSpace(*f.Filename) == "":
			transport = append(transport, label+": missing 'filename'")
			continue
		case f.Content == nil || *f.Content == "":
			transport = append(transport, label+": missing 'content'")
			continue
		}
		data := []byte(*f.Content)
		if f.Encoding != nil && strings.EqualFold(*f.Encoding, "base64") {
			if data, err = decodeBase64(*f.Content); err != nil {
				transport = append(transport, label+": invalid base64 content")
				continue
			}
		}
		folder := ""
		if f.FolderPath != nil {
			folder = *f.FolderPath
		}
		if _, err := h.svc.Upload(ctx, acc.Access, c, knowledge.File{Name: *f.Filename, Folder: folder, Data: data}); err != nil {
			var ce *cerrors.Error
			if !asError(err, &ce) {
				return nil, err
			}
			service = append(service, label+": "+ce.Msg)
			continue
		}
		ok++
	}
	failures := append(transport, service...)
	var b strings.Builder
	if ok == 0 && len(service) == 0 {
		fmt.Fprintf(&b, "Uploaded 0 of %d file(s).", len(files))
	} else {
		fmt.Fprintf(&b, "Uploaded %d of %d file(s) to container '%s'.", ok, len(files), c.Name)
	}
	if len(failures) > 0 {
		b.WriteString("\n\nFailures:\n- " + strings.Join(failures, "\n- "))
	} else {
		b.WriteString("\n\nAll files queued for ingestion (parsing, chunking, embedding).")
	}
	return text(b.String()), nil
}
