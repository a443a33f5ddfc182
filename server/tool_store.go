package server

import (
	"context"

	"github.com/contextd/contextd"
)

// storeContextTool declares store_context.
func storeContextTool() *toolDef {
	return &toolDef{
		name:    "store_context",
		title:   "Store Context",
		kind:    additive,
		writes:  true,
		failure: "Failed to store context",
		desc: `Store a context entry: text with optional images, metadata and tags, in a thread.

All agents working on the same task should use the same thread_id to share context. Text is stored with surrounding whitespace removed; prefer Markdown. Tags are normalized (trimmed, lowercased, de-duplicated). The entry is owned by the caller.

Deduplication (deduplicate=true, the default) protects against retransmits: when the caller's own latest entry of the same thread and source has identical text and no entry of the other source followed it, that entry is updated instead of inserting a duplicate. metadata is replaced when given and kept when omitted; tags and images are replaced when given ([] clears) and kept when omitted; owner and visibility never change. deduplicate=false always inserts a new entry.

Limits: thread_id at most 256 characters; at most 100 tags of at most 128 characters each; at most 10 images, each at most MAX_IMAGE_SIZE_MB (default 10 MB) and together at most MAX_TOTAL_SIZE_MB (default 100 MB); at most 512 characters under an indexed metadata field (by default status, agent_name, task_name, project, report_type).

Returns {success, context_id, thread_id, message}: context_id is the 32-character hex ID; message starts with "Context stored" for a new entry and "Context updated" for a deduplication merge.`,
		params: []param{
			{name: "thread_id", typ: tString, required: true, minLength: 1, maxLength: 256, noNUL: true,
				desc: "Identifier of the conversation or task thread the entry belongs to; every agent working on the same task uses the same thread_id. 1 to 256 characters."},
			{name: "source", typ: tString, required: true, enum: sourceEnum,
				desc: "Who produced the content: 'user' or 'agent'."},
			{name: "text", typ: tString, required: true, minLength: 1, noNUL: true,
				desc: "The content to store, preferably Markdown. Surrounding whitespace is removed; it must not be empty."},
			imagesParam("Images attached to the entry, at most 10: objects {data (base64), mime_type (default image/png), metadata (a JSON-encoded string)}. Each at most MAX_IMAGE_SIZE_MB (default 10 MB), together at most MAX_TOTAL_SIZE_MB (default 100 MB)."),
			{name: "metadata", typ: tObject,
				desc: `Free-form JSON object of structured data, e.g. {"agent_name": "planner", "task_name": "auth", "status": "done", "project": "api", "references": {"context_ids": ["<id>"]}}. Indexed fields (by default status, agent_name, task_name, project, report_type) filter fastest and hold at most 512 characters.`},
			writeTagsParam("Labels for organization, at most 100 of at most 128 characters each; normalized to lowercase."),
			{name: "visibility", typ: tString, enum: visibilityEnum,
				desc: "'private' (readable by the owner and grantees) or 'public' (readable by everyone). Omitted uses the server default (ACCESS_CONTROL_DEFAULT_VISIBILITY, default private). Publishing may require the ACCESS_CONTROL_PUBLISH_ROLE role. Applies only when a new entry is inserted."},
			{name: "deduplicate", typ: tBoolean, def: true,
				desc: "true (default) updates the caller's own latest entry of the same thread and source instead of inserting a duplicate when its text is identical; false always inserts a new entry."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			req := contextd.StoreRequest{
				ThreadID:    a.str("thread_id"),
				Source:      a.str("source"),
				Text:        a.str("text"),
				Metadata:    a.object("metadata"),
				Tags:        a.strings("tags"),
				Visibility:  a.str("visibility"),
				Deduplicate: a.boolPtr("deduplicate"),
			}
			imgs, err := decodeImages(a.objects("images"))
			if err != nil {
				return nil, &argError{Param: "images", Msg: err.Error()}
			}
			req.Images = imgs
			return eng.Store(ctx, req)
		},
	}
}
