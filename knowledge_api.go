package contextd

import (
	"context"
	"time"

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

// Knowledge search modes (KnowledgeSearchRequest.Mode).
const (
	KnowledgeSemantic = "Semantic"
	KnowledgeKeyword  = "Keyword"
	KnowledgeHybrid   = "Hybrid"
)

// KnowledgeDefaultTopK is search_knowledge's number of results when
// KnowledgeSearchRequest.TopK is nil.
const KnowledgeDefaultTopK = 10

// Knowledge container kinds (KnowledgeContainer.Kind).
const (
	KnowledgeKindManaged = "managed" // a container the engine owns
	KnowledgeKindSource  = "source"  // a folder mirrored read-only (KnowledgeConfig.Sources)
)

// KnowledgeContainer is a container, or a read-only source scope, as the
// caller sees it.
type KnowledgeContainer struct {
	ID          string    `json:"id"`   // hyphenated UUID
	Kind        string    `json:"kind"` // KnowledgeKindManaged or KnowledgeKindSource
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Owner       string    `json:"owner"`
	Visibility  string    `json:"visibility"`
	CreatedAt   time.Time `json:"created_at"`
	// Writable reports whether the caller may upload to it and delete it;
	// set by every method that resolves one container, false in lists.
	Writable bool `json:"writable"`
	// Files is the number of its documents the caller may read; set by
	// ListKnowledgeContainers only.
	Files int `json:"files"`
}

func containerOf(c knowledge.Container) KnowledgeContainer {
	return KnowledgeContainer{ID: knowledge.FormatID(c.ID), Kind: c.Kind, Name: c.Name, Description: c.Description,
		Owner: c.Owner, Visibility: c.Visibility, CreatedAt: c.CreatedAt, Writable: c.Writable}
}

// KnowledgeCreateRequest is the input of container_create.
type KnowledgeCreateRequest struct {
	Name        string `json:"name"` // trimmed; 2-128 of a-z, 0-9 and "-"
	Description string `json:"description,omitempty"`
}

// KnowledgeContainerRequest names one container (container_delete,
// container_stats): a UUID in any .NET form, or a name.
type KnowledgeContainerRequest struct {
	Container string `json:"containerId"`
}

// KnowledgeStats are container_stats' figures over the documents the
// caller may read.
type KnowledgeStats struct {
	Container  KnowledgeContainer `json:"container"`
	Documents  int                `json:"documents"`
	Ready      int                `json:"ready"`
	Processing int                `json:"processing"`
	Failed     int                `json:"failed"`
	Chunks     int                `json:"chunks"`
	Bytes      int64              `json:"bytes"`
	Model      string             `json:"model,omitempty"` // the embedding model of the vectors
	Dims       int                `json:"dims,omitempty"`
	Vectors    int                `json:"vectors"`
	// LastIndexed is the last ingestion's end; zero: never.
	LastIndexed time.Time `json:"last_indexed"`
}

// KnowledgeUploadRequest is the input of upload_file: exactly one of
// Content (base64, for binary formats) and TextContent (raw text).
type KnowledgeUploadRequest struct {
	Container   string  `json:"containerId"`
	FileName    string  `json:"fileName"` // with its extension, no path separators
	Content     *string `json:"content,omitempty"`
	TextContent *string `json:"textContent,omitempty"`
	Path        string  `json:"path,omitempty"`     // destination folder; "" is the root
	Strategy    string  `json:"strategy,omitempty"` // Semantic (default), FixedSize or Recursive
}

// KnowledgeUploadResponse is an accepted upload, queued for ingestion.
type KnowledgeUploadResponse struct {
	DocumentID string `json:"documentId"`
	JobID      string `json:"jobId"`
	Path       string `json:"path"` // the document's virtual path
}

// KnowledgeBulkFile is one file of a bulk upload.
type KnowledgeBulkFile struct {
	FileName string `json:"filename"`
	Content  string `json:"content"`
	Base64   bool   `json:"base64,omitempty"` // Content is base64, else text
	Folder   string `json:"folderPath,omitempty"`
}

// KnowledgeBulkUploadRequest is the input of bulk_upload: 1 to 100 files.
type KnowledgeBulkUploadRequest struct {
	Container string              `json:"containerId"`
	Files     []KnowledgeBulkFile `json:"files"`
}

// KnowledgeBulkUploadResponse is one result per file, in request order.
type KnowledgeBulkUploadResponse struct {
	Container string                `json:"container"` // the container's name
	Results   []KnowledgeBulkResult `json:"results"`
}

// KnowledgeBulkResult is the outcome of one item of a bulk call.
type KnowledgeBulkResult struct {
	// Uploaded is set for an accepted upload (bulk_upload only).
	Uploaded *KnowledgeUploadResponse `json:"uploaded,omitempty"`
	// Error is the refusal's message, "" on success.
	Error string `json:"error,omitempty"`
	// Rejected marks an item refused before it reached the container
	// (no file name, no content, invalid base64), as opposed to one the
	// upload itself refused.
	Rejected bool `json:"rejected,omitempty"`
}

// KnowledgeListFilesRequest is the input of list_files.
type KnowledgeListFilesRequest struct {
	Container string `json:"containerId"`
	Path      string `json:"path,omitempty"` // a folder; "" is the root
}

// KnowledgeListing is one folder of a container.
type KnowledgeListing struct {
	Folder string              `json:"folder"` // normalised, ending in "/"
	Dirs   []string            `json:"dirs"`   // immediate sub-folder names, case-insensitively sorted
	Files  []KnowledgeDocument `json:"files"`  // documents directly in Folder, newest first, no Text
}

// KnowledgeDocumentRequest names one document of a container
// (get_document, delete_file): its id, or its virtual path for
// get_document.
type KnowledgeDocumentRequest struct {
	Container string `json:"containerId"`
	FileID    string `json:"fileId"`
}

// KnowledgeDocument is one document.
type KnowledgeDocument struct {
	ID        string    `json:"id"` // hyphenated UUID
	Name      string    `json:"name"`
	Path      string    `json:"path"`
	Size      int64     `json:"size"`   // bytes uploaded
	Status    string    `json:"status"` // Pending, Processing, Ready or Failed
	Error     string    `json:"error,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// Text is the extracted text (get_document only).
	Text string `json:"text,omitempty"`
}

func documentOf(d knowledge.Doc) KnowledgeDocument {
	return KnowledgeDocument{ID: knowledge.FormatID(d.ID), Name: d.Name, Path: d.Path, Size: d.Size,
		Status: d.Status, Error: d.Error, CreatedAt: d.CreatedAt, Text: d.Text}
}

// KnowledgeBulkDeleteRequest is the input of bulk_delete: 1 to 100 ids.
type KnowledgeBulkDeleteRequest struct {
	Container string   `json:"containerId"`
	FileIDs   []string `json:"fileIds"`
}

// KnowledgeBulkDeleteResponse is one result per id, in request order.
type KnowledgeBulkDeleteResponse struct {
	Results []KnowledgeBulkResult `json:"results"`
}

// KnowledgeSearchRequest is the input of search_knowledge.
type KnowledgeSearchRequest struct {
	Container string `json:"containerId"` // a container or a source scope
	Query     string `json:"query"`       // at most 10,000 UTF-16 units
	// Mode is Semantic, Keyword or Hybrid, case-insensitively ("0", "1",
	// "2" too); anything else is Hybrid.
	Mode string `json:"mode,omitempty"`
	// TopK is 1 to 100; nil is KnowledgeDefaultTopK.
	TopK *int   `json:"topK,omitempty"`
	Path string `json:"path,omitempty"` // a folder subtree; "" for all
	// MinScore is 0 to 1; nil is KnowledgeConfig.MinScore.
	MinScore *float64 `json:"minScore,omitempty"`
}

// KnowledgeSearchResponse is a search's hits, best first.
type KnowledgeSearchResponse struct {
	Mode    string         `json:"mode"` // the parsed mode
	Hits    []KnowledgeHit `json:"hits"`
	Total   int            `json:"total"` // matching chunks before the topK cut
	Elapsed time.Duration  `json:"elapsed"`
}

// KnowledgeHit is one matching chunk.
type KnowledgeHit struct {
	Score      float64 `json:"score"`
	DocumentID string  `json:"documentId"` // hyphenated UUID
	Name       string  `json:"name"`       // the document's file name
	Path       string  `json:"path"`
	Chunk      int     `json:"chunk"` // the chunk's index in its document
	Text       string  `json:"text"`
}

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
	out := containerOf(*c)
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
	out := make([]KnowledgeContainer, len(list))
	for i, c := range list {
		out[i] = containerOf(c.Container)
		out[i].Files = c.Files
	}
	return out, nil
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
	return &KnowledgeStats{Container: containerOf(*c), Documents: st.Documents, Ready: st.Ready,
		Processing: st.Processing, Failed: st.Failed, Chunks: st.Chunks, Bytes: st.Bytes, Model: st.Model,
		Dims: st.Dims, Vectors: st.Vectors, LastIndexed: st.LastIndexed}, nil
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
	return uploadOf(up), nil
}

func uploadOf(up *knowledge.Uploaded) *KnowledgeUploadResponse {
	return &KnowledgeUploadResponse{DocumentID: knowledge.FormatID(up.DocumentID), JobID: up.JobID, Path: up.Path}
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
	return &KnowledgeBulkUploadResponse{Container: c.Name, Results: bulkResults(res)}, nil
}

// bulkResults are the results of a bulk call as the caller sees them.
func bulkResults(res []knowledge.BulkResult) []KnowledgeBulkResult {
	out := make([]KnowledgeBulkResult, len(res))
	for i, r := range res {
		out[i] = KnowledgeBulkResult{Error: r.Error, Rejected: r.Rejected}
		if r.Uploaded != nil {
			out[i].Uploaded = uploadOf(r.Uploaded)
		}
	}
	return out
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
	out := &KnowledgeListing{Folder: l.Folder, Dirs: l.Dirs, Files: make([]KnowledgeDocument, len(l.Files))}
	for i, d := range l.Files {
		out.Files[i] = documentOf(d)
		out.Files[i].Text = ""
	}
	return out, nil
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
	out := documentOf(*d)
	return &out, nil
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
	out := documentOf(*d)
	out.Text = ""
	return &out, nil
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
	return &KnowledgeBulkDeleteResponse{Results: bulkResults(res)}, nil
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
	out := &KnowledgeSearchResponse{Mode: q.Mode, Total: res.Total, Elapsed: res.Elapsed, Hits: make([]KnowledgeHit, len(res.Hits))}
	for i, h := range res.Hits {
		out.Hits[i] = KnowledgeHit{Score: h.Score, DocumentID: knowledge.FormatID(h.DocumentID), Name: h.Name,
			Path: h.Path, Chunk: h.Chunk, Text: h.Text}
	}
	return out, nil
}

// WaitKnowledgeIdle waits until no ingestion is queued or running in
// this process, or ctx ends: after it, every document uploaded through
// this engine before the call is Ready or Failed.
func (e *Engine) WaitKnowledgeIdle(ctx context.Context) error { return e.know.WaitIdle(ctx) }

// FormatKnowledgeBytes renders a size as container_stats does: "512 B",
// "1.0 KB", "2.4 MB", "1.1 GB".
func FormatKnowledgeBytes(n int64) string { return knowledge.FormatBytes(n) }
