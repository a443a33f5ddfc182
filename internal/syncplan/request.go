package syncplan

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/contextd/contextd/api"
	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/internal/request"
)

// MaxManifest is the most items one plan_context_sync call takes.
const MaxManifest = 1000

// PlanRequest is the input of plan_context_sync. Manifest holds the items
// as the caller sent them (JSON objects), so that every R-140 refusal
// (unknown keys, keep other than true) is decided here, the same for a
// library caller and an MCP client; Item.Arg builds one.
type PlanRequest = api.PlanSyncRequest

// Item is one manifest item: an ordinary item (both digests) or a keep
// item (Keep, no digest).
type Item struct {
	SourceID   string
	TextDigest string
	MetaDigest string
	Keep       bool
}

// Arg returns the item as the JSON object plan_context_sync takes.
func (it Item) Arg() map[string]any {
	if it.Keep {
		return map[string]any{"source_id": it.SourceID, "keep": true}
	}
	return map[string]any{"source_id": it.SourceID, "text_digest": it.TextDigest, "meta_digest": it.MetaDigest}
}

// Plan is the result of plan_context_sync.
type Plan = api.PlanSyncResponse

// Update is one planned update: the manifest index, the entry, and what
// changed ("text", "metadata" or "both").
type Update = api.SyncUpdate

// Delete is one planned delete. Reason is "duplicate" when another entry
// of the same source survives, absent when the manifest does not name the
// source.
type Delete = api.SyncDelete

// Changes of an Update, and the Reason of a duplicate Delete.
const (
	ChangeText      = "text"
	ChangeMetadata  = "metadata"
	ChangeBoth      = "both"
	ReasonDuplicate = "duplicate"
)

// MaxDeletes is the most deletes one plan lists.
const MaxDeletes = 100

// checkThread validates a corpus thread id (1 to 256 code points).
func checkThread(id string) error {
	if strings.TrimSpace(id) == "" {
		return cerrors.Invalidf("thread_id cannot be empty or whitespace")
	}
	if n := utf8.RuneCountInString(id); n > request.MaxThreadIDLen {
		return cerrors.Invalidf("thread_id is too long: %d characters, maximum is %d characters", n, request.MaxThreadIDLen)
	}
	return nil
}

// validate checks a plan request before any read and returns its
// items typed. Every message names the item and what is wrong with it.
func validate(req PlanRequest) ([]Item, error) {
	if err := checkThread(req.ThreadID); err != nil {
		return nil, err
	}
	for _, b := range []struct {
		name string
		v    *string
	}{{"source_id_after", req.SourceIDAfter}, {"source_id_through", req.SourceIDThrough}} {
		if b.v != nil && utf8.RuneCountInString(*b.v) > MaxSourceIDLen {
			return nil, cerrors.Invalidf("%s is too long: %d characters, maximum is %d", b.name, utf8.RuneCountInString(*b.v), MaxSourceIDLen)
		}
	}
	if req.SourceIDAfter != nil && req.SourceIDThrough != nil && *req.SourceIDAfter >= *req.SourceIDThrough {
		return nil, cerrors.Invalidf("source_id_after '%s' must sort before source_id_through '%s' (code-point order)",
			*req.SourceIDAfter, *req.SourceIDThrough)
	}
	if len(req.Manifest) > MaxManifest {
		return nil, cerrors.Invalidf("manifest has %d items; at most %d are allowed: sort the corpus by source_id and plan consecutive ranges",
			len(req.Manifest), MaxManifest)
	}
	if len(req.Manifest) == 0 && !req.AllowEmptyManifest {
		return nil, cerrors.Invalidf("manifest is empty: pass allow_empty_manifest=true to plan the deletion of every managed entry in the range")
	}
	items := make([]Item, len(req.Manifest))
	seen := make(map[string]int, len(req.Manifest))
	for i, raw := range req.Manifest {
		it, err := parseItem(i, raw)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[it.SourceID]; dup {
			return nil, cerrors.Invalidf("manifest item %d: source_id '%s' repeats item %d; each source_id may appear once", i, it.SourceID, j)
		}
		seen[it.SourceID] = i
		if (req.SourceIDAfter != nil && it.SourceID <= *req.SourceIDAfter) ||
			(req.SourceIDThrough != nil && it.SourceID > *req.SourceIDThrough) {
			return nil, cerrors.Invalidf("manifest item %d: source_id '%s' is outside the planned range %s",
				i, it.SourceID, rangeText(req.SourceIDAfter, req.SourceIDThrough))
		}
		items[i] = it
	}
	return items, nil
}

// rangeText renders (after, through] for a message.
func rangeText(after, through *string) string {
	a, t := "-inf", "+inf"
	if after != nil {
		a = "'" + *after + "'"
	}
	if through != nil {
		t = "'" + *through + "'"
	}
	return "(" + a + ", " + t + "]"
}

// parseItem validates one manifest item.
func parseItem(i int, raw map[string]any) (Item, error) {
	if raw == nil {
		return Item{}, cerrors.Invalidf("manifest item %d must be an object", i)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "source_id", "text_digest", "meta_digest", "keep":
		default:
			return Item{}, cerrors.Invalidf("manifest item %d: unknown key '%s'; an item is {source_id, text_digest, meta_digest} or {source_id, keep: true}", i, k)
		}
	}
	var it Item
	sid, ok := raw["source_id"].(string)
	if n := utf8.RuneCountInString(sid); !ok || n < 1 || n > MaxSourceIDLen {
		return Item{}, cerrors.Invalidf("manifest item %d: source_id must be a string of 1 to %d characters", i, MaxSourceIDLen)
	}
	it.SourceID = sid
	_, hasText := raw["text_digest"]
	_, hasMeta := raw["meta_digest"]
	if keep, ok := raw["keep"]; ok {
		if keep != true {
			return Item{}, cerrors.Invalidf("manifest item %d: keep must be true (omit it for an ordinary item)", i)
		}
		if hasText || hasMeta {
			return Item{}, cerrors.Invalidf("manifest item %d: a keep item carries no text_digest or meta_digest", i)
		}
		it.Keep = true
		return it, nil
	}
	if !hasText || !hasMeta {
		return Item{}, cerrors.Invalidf("manifest item %d: an ordinary item needs both text_digest and meta_digest", i)
	}
	for _, d := range []struct {
		name string
		dst  *string
	}{{"text_digest", &it.TextDigest}, {"meta_digest", &it.MetaDigest}} {
		s, _ := raw[d.name].(string)
		s = strings.ToLower(s)
		if !IsDigest(s) {
			return Item{}, cerrors.Invalidf("manifest item %d: %s must be a SHA-256 hex digest of 64 characters", i, d.name)
		}
		*d.dst = s
	}
	return it, nil
}
