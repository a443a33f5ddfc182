package contextd

import (
	"context"

	"github.com/contextd/contextd/internal/knowledge"
	"github.com/contextd/contextd/persist"
)

// The knowledge operations below are the eleven knowledge tools of the
// knowledge API reference (container_create ... search_knowledge) as
// engine methods. Each runs as the principal of its context, like every
// engine method, and checks its input in the reference's order; a
// refusal is an *Error whose text is the reference's message without the
// tools' "Error: " prefix. Ids in responses are hyphenated UUIDs; ids in
// requests may be in any of .NET's UUID forms, and a container may be
// named instead.

// knowledgeCaller returns the principal and access of ctx, after the
// read-only check of a writing tool when tool is not "".
func (e *Engine) knowledgeCaller(ctx context.Context, tool string) (Principal, persist.Access, error) {
	if tool != "" {
		if err := e.CheckWritable(ctx, tool); err != nil {
			return Principal{}, persist.Access{}, err
		}
	}
	return e.caller(ctx)
}

// resolver is one of the service's ways to resolve a container input:
// Resolve (any scope), ResolveManaged (containers only) or
// ResolveWritable (containers the caller may write).
type resolver func(context.Context, persist.Access, string) (*knowledge.Container, error)

// knowledgeContainer returns the caller's access and the container input
// names, after the read-only check when tool is not "".
func (e *Engine) knowledgeContainer(ctx context.Context, tool, input string, resolve resolver) (persist.Access, *knowledge.Container, error) {
	_, acc, err := e.knowledgeCaller(ctx, tool)
	if err != nil {
		return acc, nil, err
	}
	c, err := resolve(ctx, acc, input)
	return acc, c, err
}

// bulkContainer is knowledgeContainer for a bulk tool, after the check
// that its array (named array) holds 1 to 100 items.
func (e *Engine) bulkContainer(ctx context.Context, tool, array string, n int, input string) (persist.Access, *knowledge.Container, error) {
	if err := e.CheckWritable(ctx, tool); err != nil {
		return persist.Access{}, nil, err
	}
	if err := knowledge.CheckBulk(tool, array, n); err != nil {
		return persist.Access{}, nil, err
	}
	return e.knowledgeContainer(ctx, tool, input, e.know.ResolveWritable)
}

// CreateKnowledgeContainer creates a container owned by the caller
// (container_create), with Config.DefaultVisibility.
func (e *Engine) CreateKnowledgeContainer(ctx context.Context, req KnowledgeCreateRequest) (*KnowledgeContainer, error) {
	p, acc, err := e.knowledgeCaller(ctx, "container_create")
	if err != nil {
		return nil, err
	}
	c, err := e.know.Create(ctx, acc, p.Roles, req.Name, req.Description)
	if err != nil {
		return nil, err
	}
	out := knowledge.ContainerView(*c)
	return &out, nil
}

// ListKnowledgeContainers lists the containers and source scopes the
// caller may read, by name, each with its readable document count
// (container_list).
func (e *Engine) ListKnowledgeContainers(ctx context.Context) ([]KnowledgeContainer, error) {
	_, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := e.know.List(ctx, acc)
	if err != nil {
		return nil, err
	}
	return knowledge.ContainerViews(list), nil
}

// DescribeKnowledgeContainer returns a container's statistics as the
// caller sees them (container_stats); a source scope is described too.
func (e *Engine) DescribeKnowledgeContainer(ctx context.Context, req KnowledgeContainerRequest) (*KnowledgeStats, error) {
	acc, c, err := e.knowledgeContainer(ctx, "", req.Container, e.know.Resolve)
	if err != nil {
		return nil, err
	}
	st, err := e.know.Stats(ctx, acc, c)
	if err != nil {
		return nil, err
	}
	return knowledge.StatsView(*c, st), nil
}

// DeleteKnowledgeContainer deletes an empty container the caller may
// write (container_delete).
func (e *Engine) DeleteKnowledgeContainer(ctx context.Context, req KnowledgeContainerRequest) error {
	_, acc, err := e.knowledgeCaller(ctx, "container_delete")
	if err != nil {
		return err
	}
	return e.know.DeleteContainer(ctx, acc, req.Container)
}

// UploadKnowledgeFile stores one file as a Pending document and queues
// its ingestion (upload_file). A document at the same path is replaced.
func (e *Engine) UploadKnowledgeFile(ctx context.Context, req KnowledgeUploadRequest) (*KnowledgeUploadResponse, error) {
	if err := e.CheckWritable(ctx, "upload_file"); err != nil {
		return nil, err
	}
	if err := knowledge.CheckUpload(req.FileName, req.Content != nil, req.TextContent != nil); err != nil {
		return nil, err
	}
	acc, c, err := e.knowledgeContainer(ctx, "upload_file", req.Container, e.know.ResolveWritable)
	if err != nil {
		return nil, err
	}
	data, err := knowledge.UploadData(req.Content, req.TextContent)
	if err != nil {
		return nil, err
	}
	up, err := e.know.Upload(ctx, acc, c, knowledge.File{Name: req.FileName, Folder: req.Path, Data: data, Strategy: req.Strategy})
	if err != nil {
		return nil, err
	}
	return knowledge.UploadView(up), nil
}

// DecodeKnowledgeBase64 reads standard base64 with padding, skipping
// whitespace as .NET's Convert.FromBase64String does: the reading of
// upload_file's content and of bulk_upload's base64 items.
func DecodeKnowledgeBase64(s string) ([]byte, error) { return knowledge.DecodeBase64(s) }

// BulkUploadKnowledgeFiles uploads 1 to 100 files to one container
// (bulk_upload). A file refused, before or by its upload, is a result
// with its message; the others are uploaded all the same.
func (e *Engine) BulkUploadKnowledgeFiles(ctx context.Context, req KnowledgeBulkUploadRequest) (*KnowledgeBulkUploadResponse, error) {
	acc, c, err := e.bulkContainer(ctx, "bulk_upload", "files", len(req.Files), req.Container)
	if err != nil {
		return nil, err
	}
	files := make([]knowledge.BulkFile, len(req.Files))
	for i, f := range req.Files {
		files[i] = knowledge.BulkFile{Name: f.FileName, Content: f.Content, Folder: f.Folder, Base64: f.Base64}
	}
	res, err := e.know.BulkUpload(ctx, acc, c, files)
	if err != nil {
		return nil, err
	}
	return &KnowledgeBulkUploadResponse{Container: c.Name, Results: knowledge.BulkViews(res)}, nil
}

// ListKnowledgeFiles lists one folder of a container (list_files);
// folders exist while a document the caller may read lies below them.
func (e *Engine) ListKnowledgeFiles(ctx context.Context, req KnowledgeListFilesRequest) (*KnowledgeListing, error) {
	acc, c, err := e.knowledgeContainer(ctx, "", req.Container, e.know.ResolveManaged)
	if err != nil {
		return nil, err
	}
	l, err := e.know.ListFiles(ctx, acc, c, req.Path)
	if err != nil {
		return nil, err
	}
	return knowledge.ListingView(l), nil
}

// GetKnowledgeDocument returns a Ready document with its text
// (get_document); one still ingesting or failed is refused.
func (e *Engine) GetKnowledgeDocument(ctx context.Context, req KnowledgeDocumentRequest) (*KnowledgeDocument, error) {
	acc, c, err := e.knowledgeContainer(ctx, "", req.Container, e.know.ResolveManaged)
	if err != nil {
		return nil, err
	}
	d, err := e.know.Get(ctx, acc, c, req.FileID)
	if err != nil {
		return nil, err
	}
	return knowledge.DocumentView(*d, true), nil
}

// DeleteKnowledgeFile deletes one document by id (delete_file) and
// returns it as it was, without its text.
func (e *Engine) DeleteKnowledgeFile(ctx context.Context, req KnowledgeDocumentRequest) (*KnowledgeDocument, error) {
	acc, c, err := e.knowledgeContainer(ctx, "delete_file", req.Container, e.know.ResolveWritable)
	if err != nil {
		return nil, err
	}
	d, err := e.know.DeleteFile(ctx, acc, c, req.FileID)
	if err != nil {
		return nil, err
	}
	return knowledge.DocumentView(*d, false), nil
}

// BulkDeleteKnowledgeFiles deletes 1 to 100 documents of one container
// by id (bulk_delete); an id refused is a result with its message.
func (e *Engine) BulkDeleteKnowledgeFiles(ctx context.Context, req KnowledgeBulkDeleteRequest) (*KnowledgeBulkDeleteResponse, error) {
	acc, c, err := e.bulkContainer(ctx, "bulk_delete", "fileIds", len(req.FileIDs), req.Container)
	if err != nil {
		return nil, err
	}
	res, err := e.know.BulkDelete(ctx, acc, c, req.FileIDs)
	if err != nil {
		return nil, err
	}
	return &KnowledgeBulkDeleteResponse{Results: knowledge.BulkViews(res)}, nil
}

// SearchKnowledge searches the Ready chunks of one container or source
// scope that the caller may read (search_knowledge). The container is
// resolved first; then a limit the request breaks (query length, TopK,
// MinScore) is an ErrInvalid *Error with the reference's text.
func (e *Engine) SearchKnowledge(ctx context.Context, req KnowledgeSearchRequest) (*KnowledgeSearchResponse, error) {
	acc, c, err := e.knowledgeContainer(ctx, "", req.Container, e.know.Resolve)
	if err != nil {
		return nil, err
	}
	q := knowledge.Query{Text: req.Query, Mode: knowledge.ParseMode(req.Mode), TopK: knowledge.DefaultTopK,
		Path: req.Path, MinScore: req.MinScore}
	if req.TopK != nil {
		q.TopK = *req.TopK
	}
	res, err := e.know.Search(ctx, acc, c, q)
	if err != nil {
		return nil, err
	}
	return knowledge.SearchView(q.Mode, res), nil
}

// WaitKnowledgeIdle waits until no ingestion is queued or running in
// this process, or ctx ends: after it, every document uploaded through
// this engine before the call is Ready or Failed.
func (e *Engine) WaitKnowledgeIdle(ctx context.Context) error { return e.know.WaitIdle(ctx) }

// WaitIndexSettled waits until the in-process full-text index has merged
// and compacted the changes applied so far, and warmed what that made, or
// ctx ends: what a bench measures after a load is the settled index.
func (e *Engine) WaitIndexSettled(ctx context.Context) error { return e.fts.WaitSettled(ctx) }

// FormatKnowledgeBytes renders a size as container_stats does: "512 B",
// "1.0 KB", "2.4 MB", "1.1 GB".
func FormatKnowledgeBytes(n int64) string { return knowledge.FormatBytes(n) }
