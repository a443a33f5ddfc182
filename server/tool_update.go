package server

import (
	"context"

	"github.com/contextd/contextd"
)

// updateContextTool declares update_context.
func updateContextTool() *toolDef {
	return &toolDef{
		name:    "update_context",
		title:   "Update Context",
		kind:    modifying,
		writes:  true,
		failure: "Failed to update context",
		desc: `Update fields of an existing context entry; only the fields given change, and at least one is required.

text replaces the text (embeddings and summary follow). metadata replaces the whole metadata object ({} clears it). metadata_patch merges into it with RFC 7396 JSON Merge Patch: new keys are added, existing keys replaced, a null value deletes its key, arrays are replaced whole; use it to change some fields and keep the rest. metadata and metadata_patch cannot be combined. tags and images replace the whole list ([] clears; content_type follows the images). visibility may be changed by the owner only. id, thread_id, source, created_at and the owner never change; updated_at is always advanced.

The owner and holders of a write grant may update an entry. Limits: at most 100 tags of at most 128 characters, at most 10 images, at most 512 characters under an indexed metadata field (in both metadata forms).

Returns {success, context_id, updated_fields, message}.`,
		params: []param{
			{name: "context_id", typ: tString, required: true, minLength: 8,
				desc: "ID of the entry: 32-character hex, 36-character hyphenated UUID, or a unique 8 to 31 character hex prefix."},
			{name: "text", typ: tString, minLength: 1, noNUL: true,
				desc: "New text content (replaces the old; surrounding whitespace is removed, must not be empty)."},
			{name: "metadata", typ: tObject,
				desc: "New metadata, replacing all of it ({} clears it). Cannot be combined with metadata_patch."},
			{name: "metadata_patch", typ: tObject,
				desc: `Partial metadata update (RFC 7396 JSON Merge Patch): keys given are added or replaced, null deletes a key, others are kept. Example: {"status": "completed", "draft": null}. Cannot be combined with metadata.`},
			writeTagsParam("New tags, replacing all of them ([] clears); at most 100 of at most 128 characters each, normalized to lowercase."),
			imagesParam("New images, replacing all of them ([] removes them and makes the entry text-only); at most 10 objects {data (base64), mime_type, metadata (a JSON-encoded string)}."),
			{name: "visibility", typ: tString, enum: visibilityEnum,
				desc: "New visibility, 'private' or 'public'. Only the owner may change it; publishing may require the ACCESS_CONTROL_PUBLISH_ROLE role."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			req := contextd.UpdateRequest{
				ContextID:     a.str("context_id"),
				Text:          a.strPtr("text"),
				Metadata:      a.object("metadata"),
				MetadataPatch: a.object("metadata_patch"),
				Tags:          a.strings("tags"),
				Visibility:    a.strPtr("visibility"),
			}
			if a.has("images") {
				imgs, err := decodeImages(a.objects("images"))
				if err != nil {
					return nil, &argError{Param: "images", Msg: err.Error()}
				}
				req.Images = &imgs
			}
			return eng.Update(ctx, req)
		},
	}
}
