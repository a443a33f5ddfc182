package request

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
)

func TestBuildFilter(t *testing.T) {
	f, prob, err := BuildFilter(FilterSpec{
		ThreadID: "t", Tags: []string{" Go ", "go"}, StartDate: "2025-11-29",
		Metadata:        map[string]any{"status": "done"},
		MetadataFilters: []map[string]any{{"key": "n", "operator": "gt", "value": 2.0}},
	})
	if err != nil || prob != nil {
		t.Fatalf("BuildFilter: %v %+v", err, prob)
	}
	if f.Applied != 5 || strings.Join(f.Tags, ",") != "go" || f.Start == nil || len(f.Meta) != 2 {
		t.Fatalf("filter = %+v", f)
	}
	if f.Meta[1].Value != int64(2) || f.Meta[1].Op != "gt" {
		t.Fatalf("metadata filter = %+v", f.Meta[1])
	}

	_, prob, _ = BuildFilter(FilterSpec{Tags: make([]string, 101)})
	if prob == nil || prob.Message != "Too many tags in filter: 101 exceeds the maximum of 100. Narrow the filter to at most 100 tags." || len(prob.Errors) != 1 {
		t.Fatalf("tag cap problem = %+v", prob)
	}
	_, prob, _ = BuildFilter(FilterSpec{Tags: []string{" "}, Metadata: map[string]any{"a..b": 1.0, "l": []any{}}})
	want := []string{
		"Tag filter requires at least one non-blank tag",
		"Invalid metadata key 'a..b': Invalid metadata key: a..b. Only alphanumeric characters, dots, underscores, and hyphens are allowed.",
		"Invalid metadata value for key 'l': only string, number and boolean values are supported",
	}
	if prob == nil || prob.Message != "Metadata filter validation failed" || strings.Join(prob.Errors, "\n") != strings.Join(want, "\n") {
		t.Fatalf("metadata problem = %+v", prob)
	}
	if _, _, err := BuildFilter(FilterSpec{ThreadID: "a\x00"}); !errors.Is(err, cerrors.ErrInvalid) || !strings.HasPrefix(err.Error(), "thread_id: A string value contains an embedded NUL") {
		t.Fatalf("NUL thread id error = %v", err)
	}
	if _, _, err := BuildFilter(FilterSpec{EndDate: "x"}); err == nil || !strings.HasPrefix(err.Error(), `Invalid end_date format: "x".`) {
		t.Fatalf("bad date error = %v", err)
	}
}

func TestParseMetaFilterRepr(t *testing.T) {
	_, errs := ParseMetaFilter(map[string]any{"value": []any{1.0, "x", nil}, "zz": true, "key": "k k"})
	want := `Invalid metadata filter {'key': 'k k', 'value': [1, 'x', None], 'zz': True}: zz: Extra inputs are not permitted`
	if len(errs) != 2 || errs[0] != want {
		t.Fatalf("errors = %q, want first %q", errs, want)
	}
}

func TestValidateStoreOrder(t *testing.T) {
	ok := StoreInput{ThreadID: " t ", Source: "user", Text: " hello ", Tags: []string{"A", "a"}, Metadata: map[string]any{"n": 1.0}}
	st, err := ValidateStore(ok, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.ThreadID != "t" || st.Text != "hello" || st.Visibility != "private" || !st.Dedup ||
		st.Hash != ContentHash("hello") || string(st.Metadata) != `{"n":1}` || strings.Join(st.Tags, ",") != "a" || st.Images != nil {
		t.Fatalf("store = %+v", st)
	}
	cases := []struct {
		name string
		edit func(*StoreInput)
		o    Options
		want string
	}{
		{"source first", func(in *StoreInput) { in.Source = "x"; in.Text = "" }, Options{}, `Missing or invalid source (must be "user" or "agent")`},
		{"blank thread before text", func(in *StoreInput) { in.ThreadID = "\u3000"; in.Text = "" }, Options{}, "thread_id cannot be empty or whitespace"},
		{"visibility", func(in *StoreInput) { in.Visibility = "team" }, Options{}, "visibility must be one of 'private', 'public'"},
		{"publish gate", func(in *StoreInput) { in.Visibility = "public" }, Options{PublishRole: "editor"},
			"Setting visibility 'public' requires the 'editor' role (ACCESS_CONTROL_PUBLISH_ROLE), which the caller does not have"},
		{"default visibility gated", func(in *StoreInput) {}, Options{DefaultVisibility: "public", PublishRole: "editor"}, "Setting visibility 'public'"},
		{"images before tags", func(in *StoreInput) { in.Images = []ImageInput{{Data: " "}}; in.Tags = make([]string, 101) }, Options{}, `Image 0 has empty "data" field`},
		{"tag cap", func(in *StoreInput) { in.Tags = make([]string, 101) }, Options{}, "Too many tags: 101 provided, maximum is 100 per entry"},
		{"thread length", func(in *StoreInput) { in.ThreadID = strings.Repeat("é", 257) }, Options{}, "thread_id is too long: 257 characters, maximum is 256 characters"},
		{"indexed", func(in *StoreInput) { in.Metadata = map[string]any{"n": "x"} }, Options{IndexedFields: map[string]string{"n": "integer"}},
			"metadata field 'n' is indexed as integer and its value is not a valid integer: 'x'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := ok
			c.edit(&in)
			_, err := ValidateStore(in, c.o)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.Is(err, cerrors.ErrInvalid) {
				t.Fatalf("error = %v, want %q", err, c.want)
			}
		})
	}
	if _, err := ValidateStore(StoreInput{ThreadID: "t", Source: "agent", Text: "x", Visibility: "public"}, Options{PublishRole: "editor", MayPublish: true}); err != nil {
		t.Fatalf("publisher rejected: %v", err)
	}
}

func TestValidateUpdateWording(t *testing.T) {
	blank := " "
	for _, c := range []struct {
		batch bool
		in    UpdateInput
		want  string
	}{
		{false, UpdateInput{Text: &blank}, "text cannot be empty or contain only whitespace"},
		{true, UpdateInput{Text: &blank}, "text cannot be empty or whitespace"},
		{false, UpdateInput{Metadata: map[string]any{}, MetadataPatch: map[string]any{}}, "Cannot use both metadata and metadata_patch parameters together."},
		{true, UpdateInput{Metadata: map[string]any{}, MetadataPatch: map[string]any{}}, "Cannot use both metadata and metadata_patch. Use one or the other."},
		{false, UpdateInput{}, "At least one field must be provided for update"},
		{true, UpdateInput{Images: &[]ImageInput{{Data: "!!"}}}, "Image 0 has invalid base64 encoding"},
	} {
		_, err := ValidateUpdate(c.in, Options{Batch: c.batch})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Fatalf("ValidateUpdate(%+v, batch %v) = %v, want %q", c.in, c.batch, err, c.want)
		}
	}
	_, err := ValidateUpdate(UpdateInput{Images: &[]ImageInput{{Data: "!!"}}}, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "Image 0 has invalid base64 encoding: Invalid base64 data (") {
		t.Fatalf("single-tool base64 error = %v", err)
	}
	text, empty := " new ", []string{}
	u, err := ValidateUpdate(UpdateInput{Text: &text, Tags: empty, MetadataPatch: map[string]any{"a": nil}}, Options{})
	if err != nil || *u.Text != "new" || u.Hash != ContentHash("new") || u.Tags == nil || len(*u.Tags) != 0 || u.HasMeta || u.Patch == nil {
		t.Fatalf("update = %+v, %v", u, err)
	}
}

func TestDecodeImagesLimits(t *testing.T) {
	big := strings.Repeat("A", 4<<20/3*4+8) // a little over 4MB decoded
	_, err := DecodeImages([]ImageInput{{Data: big}}, Options{MaxImageSizeMB: 4})
	if err == nil || err.Error() != "Image 0 exceeds 4MB limit" {
		t.Fatalf("per-image error = %v", err)
	}
	_, err = DecodeImages([]ImageInput{{Data: big}, {Data: big}}, Options{MaxImageSizeMB: 5, MaxTotalSizeMB: 8})
	if err == nil || err.Error() != "Total image size exceeds 8MB limit" {
		t.Fatalf("total error = %v", err)
	}
	imgs, err := DecodeImages([]ImageInput{{Data: "aGVsbG8="}}, Options{})
	if err != nil || len(imgs) != 1 || string(imgs[0].Data) != "hello" || imgs[0].MimeType != "image/png" {
		t.Fatalf("decoded = %+v, %v", imgs, err)
	}
	if _, err := DecodeImages(make([]ImageInput, 11), Options{}); err == nil || err.Error() != "Too many images: 11 provided, maximum is 10 per entry" {
		t.Fatalf("image cap error = %v", err)
	}
}

type prefixes map[string][]string

func (p prefixes) ResolvePrefix(_ context.Context, _ persist.Access, prefix string) ([]string, error) {
	return p[prefix], nil
}

func TestResolveIDs(t *testing.T) {
	full := "0190abcdef1234567890abcdef123456"
	r := prefixes{"0190abcd": {full}, "0190abce": {full, full}}
	got, err := ResolveIDs(context.Background(), r, persist.Access{}, []string{"0190ABCD", full, "0190abcd-ef12-3456-7890-abcdef123456"})
	if err != nil || len(got) != 1 || got[0] != full {
		t.Fatalf("ResolveIDs = %q, %v", got, err)
	}
	for raw, want := range map[string]string{
		"0190abcf": "Invalid context ID: No context entry matches prefix '0190abcf'",
		"0190abce": "Invalid context ID: Ambiguous prefix '0190abce' matches multiple entries",
		"x":        "Invalid context ID: Invalid UUID identifier length (expected 32 hex chars after normalization): 'x'",
	} {
		_, err := ResolveIDs(context.Background(), r, persist.Access{}, []string{full, raw})
		if err == nil || err.Error() != want || !errors.Is(err, cerrors.ErrInvalid) {
			t.Fatalf("ResolveIDs(%q) error = %v, want %q", raw, err, want)
		}
	}
	plain := errors.New("disk")
	if WrapIDErr("x: ", plain) != plain {
		t.Fatal("WrapIDErr must pass a plain error unchanged")
	}
}

func TestMarshalMetadataShape(t *testing.T) {
	nest := func(n int) map[string]any {
		var v any = "x"
		for range n {
			v = map[string]any{"a": v}
		}
		return v.(map[string]any)
	}
	if _, err := MarshalMetadata("metadata", nest(MaxMetadataDepth)); err != nil {
		t.Fatalf("64 levels: %v", err)
	}
	for _, md := range []map[string]any{nest(MaxMetadataDepth + 1), nest(5000), {"l": []any{[]any{nest(MaxMetadataDepth - 2)}}}} {
		_, err := MarshalMetadata("metadata_patch", md)
		if err == nil || err.Error() != "metadata_patch is nested too deeply: at most 64 levels of objects and arrays are allowed" {
			t.Fatalf("got %v", err)
		}
	}
	// A map that contains itself is refused, not followed.
	cyc := map[string]any{}
	cyc["self"] = cyc
	if _, err := MarshalMetadata("metadata", cyc); err == nil {
		t.Fatal("a cyclic map was accepted")
	}
	big := map[string]any{"b": strings.Repeat("x", MaxMetadataBytes)}
	if _, err := MarshalMetadata("metadata", big); err == nil || err.Error() != "metadata is too large: 1048584 bytes as JSON, maximum is 1048576 bytes" {
		t.Fatalf("got %v", err)
	}
	stored, _ := json.Marshal(map[string]any{"a": strings.Repeat("a", 600_000)})
	if _, err := MergePatch(stored, map[string]any{"b": strings.Repeat("b", 600_000)}); err == nil ||
		err.Error() != "metadata after applying metadata_patch is too large: 1200015 bytes as JSON, maximum is 1048576 bytes" {
		t.Fatalf("merge: got %v", err)
	}
}

func TestBlankQueryAndJoinSentences(t *testing.T) {
	for q, want := range map[string]bool{"": false, " ": true, "\t\n\u3000\x1c": true, " a ": false, "\u200b": false} {
		if BlankQuery(q) != want {
			t.Fatalf("BlankQuery(%q) = %v", q, !want)
		}
	}
	got := JoinSentences([]string{"FTS: at most 100 keys.", "Semantic: at most 100 keys."})
	if want := "FTS: at most 100 keys. Semantic: at most 100 keys."; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := JoinSentences([]string{"FTS: x", "Semantic: y"}); got != "FTS: x. Semantic: y" {
		t.Fatalf("got %q", got)
	}
}
