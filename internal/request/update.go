package request

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/persist"
)

// UpdateInput is an update request as the caller sent it (the fields of
// the engine's UpdateRequest but the id). A nil field is absent.
type UpdateInput struct {
	Text          *string
	Metadata      map[string]any // full replacement; non-nil {} clears
	MetadataPatch map[string]any // RFC 7396
	Tags          []string       // non-nil [] clears
	Images        *[]ImageInput
	Visibility    *string
}

// Update is a validated update request. The publish gate of Visibility is
// left to the caller, which knows the entry's owner.
type Update struct {
	Text       *string // stripped
	Hash       string  // ContentHash of Text, when set
	Metadata   json.RawMessage
	HasMeta    bool // Metadata is a full replacement
	Patch      map[string]any
	Tags       *[]string        // normalized
	Images     *[]persist.Image // decoded
	Visibility *string
}

// ValidateUpdate checks everything that needs no database, in the
// documented order. o.Batch selects the wording of update_context_batch.
func ValidateUpdate(in UpdateInput, o Options) (*Update, error) {
	pu := &Update{}
	if in.Text != nil {
		t := pyfmt.Strip(*in.Text)
		if t == "" {
			if o.Batch {
				return nil, cerrors.Invalidf("text cannot be empty or whitespace")
			}
			return nil, cerrors.Invalidf("text cannot be empty or contain only whitespace")
		}
		if err := CheckTextLen(t, o); err != nil {
			return nil, err
		}
		pu.Text, pu.Hash = &t, ContentHash(t)
	}
	if in.Metadata != nil && in.MetadataPatch != nil {
		if o.Batch {
			return nil, cerrors.Invalidf("Cannot use both metadata and metadata_patch. Use one or the other.")
		}
		return nil, cerrors.Invalidf("Cannot use both metadata and metadata_patch parameters together. Use metadata for full replacement or metadata_patch for partial updates.")
	}
	if in.Text == nil && in.Metadata == nil && in.MetadataPatch == nil && in.Tags == nil && in.Images == nil && in.Visibility == nil {
		return nil, cerrors.Invalidf("At least one field must be provided for update")
	}
	if in.Images != nil {
		imgs, err := DecodeImages(*in.Images, o)
		if err != nil {
			return nil, err
		}
		pu.Images = &imgs
	}
	if err := CheckTagCaps(in.Tags); err != nil {
		return nil, err
	}
	for _, md := range []map[string]any{in.Metadata, in.MetadataPatch} {
		if err := CheckIndexedFields(o.IndexedFields, md); err != nil {
			return nil, err
		}
	}
	if in.Visibility != nil && !validVisibility(*in.Visibility) {
		return nil, cerrors.Invalidf("visibility must be one of 'private', 'public'")
	}
	if err := CheckMetadataValues("metadata", anyMap(in.Metadata)); err != nil {
		return nil, err
	}
	if err := CheckMetadataValues("metadata_patch", anyMap(in.MetadataPatch)); err != nil {
		return nil, err
	}
	if pu.Text != nil {
		if err := CheckStorable("text", *pu.Text); err != nil {
			return nil, err
		}
	}
	for _, t := range in.Tags {
		if err := CheckStorable("tags", t); err != nil {
			return nil, err
		}
	}
	if in.Metadata != nil {
		raw, err := MarshalMetadata("metadata", in.Metadata)
		if err != nil {
			return nil, err
		}
		pu.Metadata, pu.HasMeta = raw, true
	}
	if in.MetadataPatch != nil {
		// The merge keeps the depth within the larger of the stored
		// object's and the patch's; its size is checked after the merge.
		if _, err := MarshalMetadata("metadata_patch", in.MetadataPatch); err != nil {
			return nil, err
		}
	}
	pu.Patch = in.MetadataPatch
	if in.Tags != nil {
		tags := NormalizeTags(in.Tags)
		pu.Tags = &tags
	}
	pu.Visibility = in.Visibility
	return pu, nil
}

// MergePatch applies an RFC 7396 merge patch to a stored metadata object;
// a missing or non-object target counts as {}.
func MergePatch(target json.RawMessage, patch map[string]any) (json.RawMessage, error) {
	var cur any
	if len(target) > 0 {
		dec := json.NewDecoder(bytes.NewReader(target))
		dec.UseNumber()
		if err := dec.Decode(&cur); err != nil {
			return nil, fmt.Errorf("stored metadata: %w", err)
		}
	}
	out, err := json.Marshal(mergeValue(cur, patch))
	if err != nil {
		return nil, cerrors.Invalidf("metadata_patch must be a JSON object")
	}
	if err := CheckMetadataSize("metadata after applying metadata_patch", out); err != nil {
		return nil, err
	}
	return out, nil
}

func mergeValue(target any, patch map[string]any) map[string]any {
	obj, ok := target.(map[string]any)
	if !ok {
		obj = map[string]any{}
	}
	for k, v := range patch {
		switch pv := v.(type) {
		case nil:
			delete(obj, k)
		case map[string]any:
			obj[k] = mergeValue(obj[k], pv)
		default:
			obj[k] = v
		}
	}
	return obj
}
