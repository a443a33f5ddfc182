package api

import "time"

// The knowledge types are the inputs and results of the eleven knowledge
// tools of the knowledge API reference (container_create ...
// search_knowledge). Ids in responses are hyphenated UUIDs; ids in
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
	KnowledgeKindSource  = "source"  // a folder mirrored read-only (the engine's KnowledgeConfig.Sources)
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
	// Passage is where Text sits in the document, as a ranked context
	// result's passage: code-point offsets [Start, End) into the
	// document's text and the 1-based lines of its first and last code
	// point; Passage.Text is that span of the document (Text may also
	// carry the heading trail the chunker prefixed). The tool's text
	// answer keeps upstream's format and does not show it; library
	// callers and the web page do.
	Passage Passage `json:"passage"`
}
