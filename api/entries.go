package api

import "encoding/json"

// Visibilities of an entry (StoreRequest.Visibility, EntryView.Visibility).
const (
	VisibilityPrivate = "private"
	VisibilityPublic  = "public"
)

// ImageInput is one image of a store or update request.
type ImageInput struct {
	Data     string  `json:"data"`
	MimeType string  `json:"mime_type,omitempty"` // "" means image/png
	Metadata *string `json:"metadata,omitempty"`  // a JSON-encoded string, kept verbatim
}

// StoreRequest is the input of store_context and of one store_context_batch entry.
type StoreRequest struct {
	ThreadID    string         `json:"thread_id"`
	Source      string         `json:"source"`
	Text        string         `json:"text"`
	Images      []ImageInput   `json:"images,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Tags        []string       `json:"tags,omitempty"`
	Visibility  string         `json:"visibility,omitempty"`  // "" uses the default visibility
	Deduplicate *bool          `json:"deduplicate,omitempty"` // nil means true
}

// StoreResponse is the result of store_context.
type StoreResponse struct {
	Success   bool   `json:"success"`
	ContextID string `json:"context_id"`
	ThreadID  string `json:"thread_id"`
	Message   string `json:"message"`
}

// ImageView is one image of a returned entry.
type ImageView struct {
	Data     string  `json:"data"`
	MimeType string  `json:"mime_type"`
	Metadata *string `json:"metadata,omitempty"`
}

// EntryView is one entry as a read tool returns it.
type EntryView struct {
	ID          string          `json:"id"`
	ThreadID    string          `json:"thread_id"`
	Source      string          `json:"source"`
	ContentType string          `json:"content_type"`
	TextContent string          `json:"text_content"`
	Metadata    json.RawMessage `json:"metadata"`
	// Summary is always set in search results; in get_context_by_ids it
	// follows GET_CONTEXT_BY_IDS_INCLUDE_SUMMARY (nil omits the key).
	Summary                *string     `json:"summary,omitempty"`
	Tags                   []string    `json:"tags"`
	Images                 []ImageView `json:"images,omitempty"`
	CreatedAt              string      `json:"created_at"`
	UpdatedAt              string      `json:"updated_at"`
	IsTextContentTruncated *bool       `json:"is_text_content_truncated,omitempty"`
	Visibility             string      `json:"visibility"`
	IsOwner                bool        `json:"is_owner"`
}

// GetRequest is the input of get_context_by_ids.
type GetRequest struct {
	ContextIDs    []string `json:"context_ids"`
	IncludeImages *bool    `json:"include_images,omitempty"` // nil means true
}

// SearchFilter holds the structural filters shared by the search tools.
// MetadataFilters carries the filter objects as the caller sent them
// ({key, operator, value, case_sensitive}); the engine validates them and
// reports every problem at once.
type SearchFilter struct {
	ThreadID        string           `json:"thread_id,omitempty"`
	Source          string           `json:"source,omitempty"`
	Tags            []string         `json:"tags,omitempty"`
	ContentType     string           `json:"content_type,omitempty"`
	Metadata        map[string]any   `json:"metadata,omitempty"`
	MetadataFilters []map[string]any `json:"metadata_filters,omitempty"`
	StartDate       string           `json:"start_date,omitempty"`
	EndDate         string           `json:"end_date,omitempty"`
}

// SearchRequest is the input of search_context.
type SearchRequest struct {
	SearchFilter
	Limit         int  `json:"limit,omitempty"` // 0 means the default (30)
	Offset        int  `json:"offset,omitempty"`
	IncludeImages bool `json:"include_images,omitempty"`
	ExplainQuery  bool `json:"explain_query,omitempty"`
}

// SearchStats is the explain_query block.
type SearchStats struct {
	ExecutionTimeMS float64 `json:"execution_time_ms"`
	FiltersApplied  int     `json:"filters_applied"`
	RowsReturned    int     `json:"rows_returned"`
	Backend         string  `json:"backend"`
	QueryPlan       *string `json:"query_plan"`
}

// ClampedLimit reports a limit above the maximum that was lowered.
type ClampedLimit struct {
	Requested int `json:"requested"`
	Applied   int `json:"applied"`
}

// SearchResponse is the result of search_context. A filter that fails
// validation is not an error: Error and ValidationErrors say what was wrong.
type SearchResponse struct {
	Results          []EntryView   `json:"results"`
	Count            int           `json:"count"`
	Stats            *SearchStats  `json:"stats,omitempty"`
	ClampedLimit     *ClampedLimit `json:"clamped_limit,omitempty"`
	Error            string        `json:"error,omitempty"`
	ValidationErrors []string      `json:"validation_errors,omitempty"`
}

// UpdateRequest is the input of update_context and of one
// update_context_batch item.
type UpdateRequest struct {
	ContextID     string         `json:"context_id"`
	Text          *string        `json:"text,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`       // full replacement; non-nil {} clears
	MetadataPatch map[string]any `json:"metadata_patch,omitempty"` // RFC 7396
	Tags          []string       `json:"tags,omitempty"`           // non-nil [] clears
	Images        *[]ImageInput  `json:"images,omitempty"`
	Visibility    *string        `json:"visibility,omitempty"`
}

// UpdateResponse is the result of update_context.
type UpdateResponse struct {
	Success       bool     `json:"success"`
	ContextID     string   `json:"context_id"`
	UpdatedFields []string `json:"updated_fields"`
	Message       string   `json:"message"`
}

// DeleteRequest is the input of delete_context: exactly one of the two.
type DeleteRequest struct {
	ContextIDs []string `json:"context_ids,omitempty"`
	ThreadID   *string  `json:"thread_id,omitempty"`
}

// DeleteResponse is the result of delete_context.
type DeleteResponse struct {
	Success      bool   `json:"success"`
	DeletedCount int    `json:"deleted_count"`
	Message      string `json:"message"`
}

// ListThreadsRequest is the input of list_threads; Limit 0 lists all.
type ListThreadsRequest struct {
	Limit  int `json:"limit,omitempty"`
	Offset int `json:"offset,omitempty"`
}

// ThreadView is one thread of list_threads.
type ThreadView struct {
	ThreadID        string `json:"thread_id"`
	EntryCount      int    `json:"entry_count"`
	SourceTypes     int    `json:"source_types"`
	MultimodalCount int    `json:"multimodal_count"`
	FirstEntry      string `json:"first_entry"`
	LastEntry       string `json:"last_entry"`
	LastID          string `json:"last_id"`
}

// ListThreadsResponse is the result of list_threads.
type ListThreadsResponse struct {
	Threads      []ThreadView `json:"threads"`
	TotalThreads int          `json:"total_threads"`
}

// StoreBatchItem is one entry of store_context_batch. DecodeErr, when set by
// the transport, is the entry's type error (it fails validation as is).
type StoreBatchItem struct {
	StoreRequest
	DecodeErr error `json:"-"`
}

// StoreBatchRequest is the input of store_context_batch.
type StoreBatchRequest struct {
	Entries []StoreBatchItem `json:"entries"`
	Atomic  *bool            `json:"atomic,omitempty"` // nil means true
}

// BatchItemResult is one result of a store or update batch. The results
// of update_context_batch also carry updated_fields (null on failure).
type BatchItemResult struct {
	Index         int      `json:"index"`
	Success       bool     `json:"success"`
	ContextID     *string  `json:"context_id"`
	UpdatedFields []string `json:"-"`
	Error         *string  `json:"error"`
	// Cause is the failure behind an Error that is not the caller's fault
	// (Error then says only that one happened), for the server's log.
	Cause error `json:"-"`
	// Update marks a result of update_context_batch, whose JSON carries
	// updated_fields (null on failure).
	Update bool `json:"-"`
}

// MarshalJSON adds updated_fields to the results of an update batch.
func (r BatchItemResult) MarshalJSON() ([]byte, error) {
	type plain BatchItemResult
	if !r.Update {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		UpdatedFields []string `json:"updated_fields"`
	}{plain(r), r.UpdatedFields})
}

// BatchResponse is the result of store_context_batch and update_context_batch.
type BatchResponse struct {
	Success   bool              `json:"success"`
	Total     int               `json:"total"`
	Succeeded int               `json:"succeeded"`
	Failed    int               `json:"failed"`
	Results   []BatchItemResult `json:"results"`
	Message   string            `json:"message"`
}

// UpdateBatchItem is one item of update_context_batch.
type UpdateBatchItem struct {
	UpdateRequest
	DecodeErr error `json:"-"`
}

// UpdateBatchRequest is the input of update_context_batch.
type UpdateBatchRequest struct {
	Updates []UpdateBatchItem `json:"updates"`
	Atomic  *bool             `json:"atomic,omitempty"`
}

// DeleteBatchRequest is the input of delete_context_batch; criteria combine with AND.
type DeleteBatchRequest struct {
	ContextIDs    []string `json:"context_ids,omitempty"`
	ThreadIDs     []string `json:"thread_ids,omitempty"`
	Source        string   `json:"source,omitempty"`
	OlderThanDays int      `json:"older_than_days,omitempty"`
}

// DeleteBatchResponse is the result of delete_context_batch.
type DeleteBatchResponse struct {
	Success      bool     `json:"success"`
	DeletedCount int      `json:"deleted_count"`
	CriteriaUsed []string `json:"criteria_used"`
	Message      string   `json:"message"`
}
