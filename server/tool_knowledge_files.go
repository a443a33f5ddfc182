package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/contextd/contextd"
	"github.com/mark3labs/mcp-go/mcp"
)

func uploadFileTool() *toolDef {
	return knowledgeTool("upload_file",
		"Upload a file to be parsed, chunked, embedded, and made searchable. Provide either 'content' (base64) or 'textContent' (raw text), not both.", additive,
		[]param{containerIDParam,
			{name: "content", typ: tString, desc: "Base64-encoded file content. For binary files (PDF, DOCX, images). Mutually exclusive with textContent."},
			{name: "textContent", typ: tString, desc: "Raw text content for text-based files (Markdown, TXT, CSV, JSON, etc.). Mutually exclusive with content."},
			{name: "fileName", typ: tString, required: true, desc: "Original file name with extension"},
			{name: "path", typ: tString, desc: "Destination folder path (e.g., '/docs/2026/'). Default: /"},
			{name: "strategy", typ: tString, desc: "Chunking strategy: Semantic, FixedSize, or Recursive. Default: Semantic"},
		},
		func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			name := a.str("fileName")
			up, err := eng.UploadKnowledgeFile(ctx, contextd.KnowledgeUploadRequest{Container: a.str("containerId"), FileName: name,
				Content: a.strPtr("content"), TextContent: a.strPtr("textContent"), Path: a.str("path"), Strategy: a.str("strategy")})
			if err != nil {
				return nil, err
			}
			return fmt.Sprintf("File '%s' uploaded to %s and queued for ingestion.\n\nDocument ID: %s\nJob ID: %s\n\nThe file will be parsed, chunked, and embedded in the background.",
				name, up.Path, up.DocumentID, up.JobID), nil
		})
}

// bulkFile is one item of bulk_upload's files, read with case-insensitive
// keys; unknown keys are ignored.
type bulkFile struct {
	Filename   *string `json:"filename"`
	Content    *string `json:"content"`
	Encoding   *string `json:"encoding"`
	FolderPath *string `json:"folderPath"`
}

// preserveBulkText puts back into files the strings encoding/json turned
// into U+FFFD (an unpaired surrogate escape, invalid UTF-8) when it read
// raw, bulk_upload's JSON text, as handle does for tool arguments
// (rawtext.go): the upload's checks then refuse such a name, folder or
// text instead of storing it altered.
func preserveBulkText(raw string, files []bulkFile) {
	if !mayHoldInvalidText([]byte(raw)) {
		return
	}
	v, err := decodePreserving([]byte(raw))
	items, ok := v.([]any)
	if err != nil || !ok || len(items) != len(files) {
		return
	}
	for i, it := range items {
		m, _ := it.(map[string]any)
		for k, v := range m {
			s, ok := v.(string)
			if !ok || utf8.ValidString(s) {
				continue
			}
			switch {
			case strings.EqualFold(k, "filename"):
				files[i].Filename = &s
			case strings.EqualFold(k, "content"):
				files[i].Content = &s
			case strings.EqualFold(k, "folderPath"):
				files[i].FolderPath = &s
			}
		}
	}
}

func bulkUploadTool() *toolDef {
	return knowledgeTool("bulk_upload",
		"Upload up to 100 files in one call. Each file is parsed, chunked, and embedded. Returns per-file results.", additive,
		[]param{containerIDParam,
			{name: "files", typ: tString, required: true, desc: `JSON array of file objects. Each object: {"filename":"name.txt", "content":"...", "encoding":"text|base64", "folderPath":"/optional/"}. Max 100.`},
		},
		func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			var files []bulkFile
			if err := json.Unmarshal([]byte(a.str("files")), &files); err != nil {
				return "Error: 'files' must be a valid JSON array of file objects.", nil
			}
			preserveBulkText(a.str("files"), files)
			req := contextd.KnowledgeBulkUploadRequest{Container: a.str("containerId"), Files: make([]contextd.KnowledgeBulkFile, len(files))}
			labels := make([]string, len(files))
			for i, f := range files {
				labels[i] = fmt.Sprintf("item[%d]", i)
				if f.Filename != nil {
					labels[i] = *f.Filename
				}
				req.Files[i] = contextd.KnowledgeBulkFile{FileName: deref(f.Filename), Content: deref(f.Content),
					Base64: f.Encoding != nil && strings.EqualFold(*f.Encoding, "base64"), Folder: deref(f.FolderPath)}
			}
			res, err := eng.BulkUploadKnowledgeFiles(ctx, req)
			if err != nil {
				return nil, err
			}
			// Failures before the upload are listed first, then the
			// upload's own.
			var rejected, refused []string
			ok := 0
			for i, r := range res.Results {
				switch {
				case r.Error == "":
					ok++
				case r.Rejected:
					rejected = append(rejected, labels[i]+": "+r.Error)
				default:
					refused = append(refused, labels[i]+": "+r.Error)
				}
			}
			failures := append(rejected, refused...)
			var b strings.Builder
			if ok == 0 && len(refused) == 0 {
				fmt.Fprintf(&b, "Uploaded 0 of %d file(s).", len(files))
			} else {
				fmt.Fprintf(&b, "Uploaded %d of %d file(s) to container '%s'.", ok, len(files), res.Container)
			}
			if len(failures) > 0 {
				b.WriteString("\n\nFailures:\n- " + strings.Join(failures, "\n- "))
			} else {
				b.WriteString("\n\nAll files queued for ingestion (parsing, chunking, embedding).")
			}
			return b.String(), nil
		})
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func listFilesTool() *toolDef {
	return knowledgeTool("list_files",
		"List files and folders at a path within a container. Use to browse container contents before retrieving documents.", readOnly,
		[]param{containerIDParam, {name: "path", typ: tString, desc: "Folder path to list (default: root '/')"}},
		func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			l, err := eng.ListKnowledgeFiles(ctx, contextd.KnowledgeListFilesRequest{Container: a.str("containerId"), Path: a.str("path")})
			if err != nil {
				return nil, err
			}
			var b strings.Builder
			fmt.Fprintf(&b, "Contents of %s:\n\n", l.Folder)
			if len(l.Dirs) == 0 && len(l.Files) == 0 {
				b.WriteString("(empty)")
			}
			for _, d := range l.Dirs {
				fmt.Fprintf(&b, "[DIR]  %s/\n", d)
			}
			for _, f := range l.Files {
				fmt.Fprintf(&b, "[FILE] %s (%s bytes) ID: %s\n", f.Name, n0(f.Size), f.ID)
			}
			return b.String(), nil
		})
}

func getDocumentTool() *toolDef {
	return knowledgeTool("get_document",
		"Retrieve a document's full text by ID or path. Returns extracted text for binary formats (PDF, DOCX, PPTX).", readOnly,
		[]param{containerIDParam, {name: "fileId", typ: tString, required: true, desc: "Document ID (UUID) or virtual path (e.g., '/docs/readme.md')"}},
		func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			d, err := eng.GetKnowledgeDocument(ctx, contextd.KnowledgeDocumentRequest{Container: a.str("containerId"), FileID: a.str("fileId")})
			if err != nil {
				return nil, err
			}
			if strings.TrimSpace(d.Text) == "" {
				return fmt.Sprintf("Document '%s' exists but contains no readable text content.", d.Name), nil
			}
			// The text is returned byte for byte: no trimming of the document.
			return mcp.NewToolResultText(fmt.Sprintf("Document: %s\nPath: %s\nID: %s\nSize: %s bytes\nCreated: %s\n---\n%s",
				d.Name, d.Path, d.ID, n0(d.Size), d.CreatedAt.UTC().Format(knowledgeTime), d.Text)), nil
		})
}

func deleteFileTool() *toolDef {
	return knowledgeTool("delete_file",
		"Delete a file and all its chunks and vectors. To update a file, delete it first then re-upload with upload_file.", deleting,
		[]param{containerIDParam, {name: "fileId", typ: tString, required: true, desc: "File (document) ID to delete"}},
		func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			in := a.str("fileId")
			d, err := eng.DeleteKnowledgeFile(ctx, contextd.KnowledgeDocumentRequest{Container: a.str("containerId"), FileID: in})
			if err != nil {
				return nil, err
			}
			return fmt.Sprintf("File '%s' (ID: %s) deleted.", d.Name, in), nil
		})
}

func bulkDeleteTool() *toolDef {
	return knowledgeTool("bulk_delete",
		"Delete up to 100 files in one call. Returns per-file success/failure results.", deleting,
		[]param{containerIDParam,
			{name: "fileIds", typ: tString, required: true, desc: `JSON array of file (document) IDs to delete, e.g. ["id1","id2"]. Max 100.`},
		},
		func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			var ids []string
			if err := json.Unmarshal([]byte(a.str("fileIds")), &ids); err != nil {
				return "Error: 'fileIds' must be a valid JSON array of strings.", nil
			}
			res, err := eng.BulkDeleteKnowledgeFiles(ctx, contextd.KnowledgeBulkDeleteRequest{Container: a.str("containerId"), FileIDs: ids})
			if err != nil {
				return nil, err
			}
			var failures []string
			for i, r := range res.Results {
				if r.Error != "" {
					failures = append(failures, ids[i]+": "+r.Error)
				}
			}
			out := fmt.Sprintf("Deleted %d of %d file(s).", len(ids)-len(failures), len(ids))
			if len(failures) > 0 {
				out += "\n\nFailures:\n- " + strings.Join(failures, "\n- ")
			}
			return out, nil
		})
}
