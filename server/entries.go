package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/pyfmt"
)

// The batch tools take untyped objects. Each is decoded leniently here: the
// first type problem of an entry becomes its DecodeErr with the reference
// text, and every other rule (empty text, caps, base64,
// metadata contents, ids) is left to the engine. Unknown keys are ignored
//

const maxImagesPerEntry = 10

// decodeStoreEntry decodes one store_context_batch entry.
func decodeStoreEntry(m map[string]any) contextd.StoreBatchItem {
	var it contextd.StoreBatchItem
	var first error
	fail := func(msg string) {
		if first == nil {
			first = cerrors.Invalidf("%s", msg) // the caller's fault: shown as is
		}
	}

	thread, hasThread := m["thread_id"]
	source, _ := m["source"].(string)
	text, hasText := m["text"]
	switch {
	case !hasThread || falsy(thread):
		fail("Missing required field: thread_id")
	case source != "user" && source != "agent":
		fail(`Missing or invalid source (must be "user" or "agent")`)
	case !hasText || falsy(text):
		fail("Missing required field: text")
	}
	it.Source = source
	if s, ok := thread.(string); ok {
		it.ThreadID = s
	} else if hasThread && !falsy(thread) {
		fail("thread_id must be a string")
	}
	if s, ok := text.(string); ok {
		it.Text = s
	} else if hasText && !falsy(text) {
		fail("text must be a string")
	}

	if v, ok := m["visibility"]; ok && v != nil {
		s, isStr := v.(string)
		if !isStr || !contains(visibilityEnum, s) {
			fail("visibility must be one of 'private', 'public'")
		} else {
			it.Visibility = s
		}
	}
	if v, ok := m["images"]; ok && v != nil {
		imgs, err := entryImages(v)
		if err != nil {
			fail(err.Error())
		}
		it.Images = imgs
	}
	if v, ok := m["metadata"]; ok && v != nil {
		md, isObj := v.(map[string]any)
		if !isObj {
			fail("metadata must be a JSON object")
		}
		it.Metadata = md
	}
	if v, ok := m["tags"]; ok && v != nil {
		tags, isList := stringList(v)
		if !isList {
			fail("tags must be a list of strings")
		}
		it.Tags = tags
	}
	if v, ok := m["deduplicate"]; ok && v != nil {
		b, isBool := toBool(v)
		if !isBool {
			fail("deduplicate must be a boolean")
		} else {
			it.Deduplicate = &b
		}
	}
	it.DecodeErr = first
	return it
}

// decodeUpdateEntry decodes one update_context_batch item.
func decodeUpdateEntry(m map[string]any) contextd.UpdateBatchItem {
	var it contextd.UpdateBatchItem
	var first error
	fail := func(msg string) {
		if first == nil {
			first = cerrors.Invalidf("%s", msg) // the caller's fault: shown as is
		}
	}

	if cid, ok := m["context_id"]; !ok {
		fail("Missing required field: context_id")
	} else if s, isStr := cid.(string); !isStr || pyfmt.Strip(s) == "" {
		fail("context_id must be a non-empty string")
	} else {
		it.ContextID = s
	}
	if v, ok := m["text"]; ok && v != nil {
		s, isStr := v.(string)
		if !isStr {
			fail("text must be a string")
		} else {
			it.Text = &s
		}
	}
	if v, ok := m["visibility"]; ok && v != nil {
		s, isStr := v.(string)
		if !isStr || !contains(visibilityEnum, s) {
			fail("visibility must be one of 'private', 'public'")
		} else {
			it.Visibility = &s
		}
	}
	if v, ok := m["metadata"]; ok && v != nil {
		md, isObj := v.(map[string]any)
		if !isObj {
			fail("metadata must be a JSON object")
		}
		it.Metadata = md
	}
	if v, ok := m["metadata_patch"]; ok && v != nil {
		md, isObj := v.(map[string]any)
		if !isObj {
			fail("metadata_patch must be a JSON object")
		}
		it.MetadataPatch = md
	}
	if v, ok := m["tags"]; ok && v != nil {
		tags, isList := stringList(v)
		if !isList {
			fail("tags must be a list of strings")
		}
		it.Tags = tags
	}
	if v, ok := m["images"]; ok && v != nil {
		imgs, err := entryImages(v)
		if err != nil {
			fail(err.Error())
		}
		if imgs != nil {
			it.Images = &imgs
		}
	}
	it.DecodeErr = first
	return it
}

// entryImages decodes the images of a batch entry: a list of objects.
func entryImages(v any) ([]contextd.ImageInput, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, errors.New("images must be a list of objects")
	}
	objs := make([]map[string]any, len(l))
	for i, e := range l {
		if objs[i], ok = e.(map[string]any); !ok {
			return nil, errors.New("images must be a list of objects")
		}
	}
	return decodeImages(objs)
}

// decodeImages decodes image objects into engine inputs, reporting the first
// type problem with the reference texts of A.4. With more than 10 images
// the elements are not inspected: the engine reports the count first.
// The result is non-nil whenever objs is.
func decodeImages(objs []map[string]any) ([]contextd.ImageInput, error) {
	if objs == nil {
		return nil, nil
	}
	out := make([]contextd.ImageInput, len(objs))
	if len(objs) > maxImagesPerEntry {
		return out, nil
	}
	for i, m := range objs {
		data, ok := m["data"]
		if !ok {
			//lint:ignore ST1005 the reference server's exact message
			return out, fmt.Errorf(`Image %d is missing required "data" field`, i)
		}
		s, ok := data.(string)
		if !ok {
			//lint:ignore ST1005 the reference server's exact message
			return out, fmt.Errorf(`Image %d has a non-string "data" field`, i)
		}
		out[i].Data = s
		if mt, ok := m["mime_type"]; ok && mt != nil {
			s, ok := mt.(string)
			if !ok {
				//lint:ignore ST1005 the reference server's exact message
				return out, fmt.Errorf(`Image %d has a non-string "mime_type" field`, i)
			}
			out[i].MimeType = s
		}
		if md, ok := m["metadata"]; ok && md != nil {
			s, ok := md.(string)
			if !ok {
				//lint:ignore ST1005 the reference server's exact message
				return out, fmt.Errorf("Image %d metadata must be a JSON-encoded string (got %s)", i, pyType(md))
			}
			out[i].Metadata = &s
		}
	}
	return out, nil
}

// stringList returns v as a non-nil []string when it is a list of strings.
func stringList(v any) ([]string, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(l))
	for i, e := range l {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// falsy reports Python truthiness of a decoded JSON value being false.
func falsy(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case float64:
		return x == 0
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// pyType names the Python type json.loads would produce for v.
func pyType(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "dict"
	case []any:
		return "list"
	case bool:
		return "bool"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "int"
		}
		return "float"
	case json.Number:
		if strings.ContainsAny(x.String(), ".eE") {
			return "float"
		}
		return "int"
	case string:
		return "str"
	case nil:
		return "NoneType"
	}
	return fmt.Sprintf("%T", v)
}
