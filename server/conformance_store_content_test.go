package server_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/contextd/contextd"
)

// Metadata rules, images and the get summary contract: T-021..T-028
// (A.4, A.5, B.1, B.3).

const nulTail = ": A string value contains an embedded NUL (U+0000) character: PostgreSQL cannot store it, " +
	"so the same entry would store on SQLite but fail on PostgreSQL. Remove it before storing."

func TestConformanceIndexedMetadataCaps(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		tooLong := func(n string) string {
			return "metadata field 'status' is indexed and its value is too long: " + n + " characters, maximum is 512 characters"
		}
		id := env.store(t, "alice", M{"thread_id": "t021", "source": "user", "text": "512", "metadata": M{"status": repeat("é", 512)}})
		env.store(t, "alice", M{"thread_id": "t021", "source": "agent", "text": "notes", "metadata": M{"notes": repeat("n", 10000)}})
		env.store(t, "alice", M{"thread_id": "t021", "source": "user", "text": "short list", "metadata": M{"status": []string{"a", "b"}}})
		before := env.total(t, "alice")

		t.Run("T-021 a 513-character value is refused on store", func(t *testing.T) {
			got := env.call(t, "alice", "store_context", M{"thread_id": "t021", "source": "user", "text": "x",
				"metadata": M{"status": repeat("x", 513)}}).err(t)
			wantEqual(t, "message", got, tooLong("513"))
		})
		t.Run("T-021 a list is measured as its serialized JSON", func(t *testing.T) {
			list := make([]string, 100)
			for i := range list {
				list[i] = "abcd"
			}
			// ["abcd", "abcd", ...]: 100*6 + 99*2 + 2 = 800 characters.
			got := env.call(t, "alice", "store_context", M{"thread_id": "t021", "source": "user", "text": "x",
				"metadata": M{"status": list}}).err(t)
			wantEqual(t, "message", got, tooLong("800"))
		})
		t.Run("T-021 update metadata and metadata_patch are capped too", func(t *testing.T) {
			for _, key := range []string{"metadata", "metadata_patch"} {
				got := env.call(t, "alice", "update_context", M{"context_id": id, key: M{"status": repeat("x", 513)}}).err(t)
				wantEqual(t, key, got, tooLong("513"))
			}
			wantEqualJSON(t, "metadata unchanged", field(t, env.getOne(t, "alice", id), "metadata"),
				mustJSON(M{"status": repeat("é", 512)}))
		})
		wantEqual(t, "total after refusals", env.total(t, "alice"), before)
	})
}

func TestConformanceIndexedMetadataTypes(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		accepted := []struct {
			key   string
			value any
		}{
			{"priority", "0x10"}, {"priority", "1_000"}, {"priority", "0o17"}, {"priority", "0b101"},
			{"priority", 42}, {"priority", " 7 "}, {"priority", "+5"}, {"priority", "-2147483648"},
			{"priority", 2147483647}, {"priority", nil},
			{"done", "yes"}, {"done", "OFF"}, {"done", "t"}, {"done", true}, {"done", 0},
			{"score", "1e5"}, {"score", "nan"}, {"score", "-Infinity"}, {"score", "0x10"}, {"score", 3.25},
		}
		for _, c := range accepted {
			t.Run("T-022 accepts "+c.key+"="+mustJSON(c.value), func(t *testing.T) {
				id := env.store(t, "alice", M{"thread_id": "t022", "source": "user", "text": "ok " + mustJSON(c.value),
					"deduplicate": false, "metadata": M{c.key: c.value}})
				wantEqualJSON(t, "stored verbatim", field(t, env.getOne(t, "alice", id), "metadata"), mustJSON(M{c.key: c.value}))
			})
		}
		invalid := func(key, typ, val string) string {
			return "metadata field '" + key + "' is indexed as " + typ + " and its value is not a valid " + typ + ": '" + val + "'"
		}
		rejected := []struct {
			key   string
			value any
			want  string
		}{
			{"priority", "abc", invalid("priority", "integer", "abc")},
			{"priority", "1__0", invalid("priority", "integer", "1__0")},
			{"priority", 1.5, invalid("priority", "integer", "1.5")},
			{"priority", true, invalid("priority", "integer", "true")},
			{"priority", 3000000000, "metadata field 'priority' is indexed as integer and its value is out of range: 3000000000 (the supported range is -2147483648 to 2147483647)"},
			{"priority", "2147483648", "metadata field 'priority' is indexed as integer and its value is out of range: 2147483648 (the supported range is -2147483648 to 2147483647)"},
			{"priority", []int{1}, "metadata field 'priority' is indexed as integer and a list value cannot be stored in it"},
			{"priority", M{"a": 1}, "metadata field 'priority' is indexed as integer and a dict value cannot be stored in it"},
			{"done", "maybe", invalid("done", "boolean", "maybe")},
			{"done", 2, invalid("done", "boolean", "2")},
			{"score", "abc", invalid("score", "float", "abc")},
		}
		before := env.total(t, "alice")
		for _, c := range rejected {
			t.Run("T-022 refuses "+c.key+"="+mustJSON(c.value), func(t *testing.T) {
				got := env.call(t, "alice", "store_context", M{"thread_id": "t022", "source": "user", "text": "bad",
					"metadata": M{c.key: c.value}}).err(t)
				wantEqual(t, "message", got, c.want)
			})
		}
		t.Run("T-022 metadata_patch is checked too", func(t *testing.T) {
			id := env.store(t, "alice", M{"thread_id": "t022p", "source": "user", "text": "p", "metadata": M{"priority": 1}})
			got := env.call(t, "alice", "update_context", M{"context_id": id, "metadata_patch": M{"priority": "abc"}}).err(t)
			wantEqual(t, "message", got, invalid("priority", "integer", "abc"))
			env.call(t, "alice", "update_context", M{"context_id": id, "metadata_patch": M{"priority": "0x10"}}).ok(t)
			wantEqualJSON(t, "metadata", field(t, env.getOne(t, "alice", id), "metadata"), `{"priority":"0x10"}`)
			before++
		})
		wantEqual(t, "total after refusals", env.total(t, "alice"), before)
	}, withIndexedFields(
		contextd.IndexedField{Name: "priority", Type: "integer"},
		contextd.IndexedField{Name: "done", Type: "boolean"},
		contextd.IndexedField{Name: "score", Type: "float"},
	))
}

func TestConformanceUnstorableText(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		id := env.storeText(t, "alice", "t023", "user", "clean")
		before := env.total(t, "alice")
		cases := []struct {
			name string
			tool string
			args M
			want string // prefix
		}{
			{"T-023 metadata value", "store_context", M{"thread_id": "t023", "source": "user", "text": "x", "metadata": M{"note": "a\x00b"}}, "metadata" + nulTail},
			{"nested metadata value", "store_context", M{"thread_id": "t023", "source": "user", "text": "x", "metadata": M{"a": M{"b": []string{"x\x00"}}}}, "metadata" + nulTail},
			{"text", "store_context", M{"thread_id": "t023", "source": "user", "text": "a\x00b"}, "text" + nulTail},
			{"thread_id", "store_context", M{"thread_id": "t\x00023", "source": "user", "text": "x"}, "thread_id" + nulTail},
			{"tags", "store_context", M{"thread_id": "t023", "source": "user", "text": "x", "tags": []string{"a\x00"}}, "tags" + nulTail},
			{"update text", "update_context", M{"context_id": id, "text": "a\x00b"}, "text" + nulTail},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				wantEqual(t, "message", env.call(t, "alice", c.tool, c.args).err(t), c.want)
			})
		}
		t.Run("metadata key", func(t *testing.T) {
			got := env.call(t, "alice", "store_context", M{"thread_id": "t023", "source": "user", "text": "x", "metadata": M{"k\x00": 1}}).err(t)
			wantErrContains(t, got, "A metadata key contains an embedded NUL (U+0000) character")
		})
		t.Run("update metadata_patch value", func(t *testing.T) {
			got := env.call(t, "alice", "update_context", M{"context_id": id, "metadata_patch": M{"n": "\x00"}}).err(t)
			wantErrContains(t, got, "A string value contains an embedded NUL (U+0000) character")
		})
		wantEqual(t, "total after refusals", env.total(t, "alice"), before)
		wantEqual(t, "entry untouched", str(t, env.getOne(t, "alice", id), "text_content"), "clean")
	})
}

var pngBytes = []byte("\x89PNG\r\n\x1a\nconformance-image-bytes")

func pngB64() string { return base64.StdEncoding.EncodeToString(pngBytes) }

// wrapLines inserts a newline every n characters.
func wrapLines(s string, n int) string {
	var b strings.Builder
	for i := 0; i < len(s); i += n {
		end := min(i+n, len(s))
		b.WriteString(s[i:end])
		b.WriteString("\n")
	}
	return b.String()
}

func TestConformanceImages(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		t.Run("T-024 base64 input is normalized to canonical base64", func(t *testing.T) {
			res := env.call(t, "alice", "store_context", M{"thread_id": "t024", "source": "user", "text": "pictures",
				"images": []M{
					{"data": "data:image/png;base64," + wrapLines(pngB64(), 8), "mime_type": "image/png"},
					{"data": "----____"},                          // URL-safe alphabet
					{"data": "AQ", "mime_type": "image/x-custom"}, // padding missing; mime not allow-listed
				}}).ok(t)
			wantPrefix(t, "message", str(t, res, "message"), "Context stored with 3 images")
			e := env.getOne(t, "alice", str(t, res, "context_id"))
			wantEqual(t, "content_type", str(t, e, "content_type"), "multimodal")
			images := objs(t, arr(t, e, "images"))
			if len(images) != 3 {
				t.Fatalf("images: got %d, want 3", len(images))
			}
			for i, want := range []struct{ data, mime string }{
				{pngB64(), "image/png"}, {"++++////", "image/png"}, {"AQ==", "image/x-custom"},
			} {
				wantEqual(t, "image data", str(t, images[i], "data"), want.data)
				wantEqual(t, "image mime_type", str(t, images[i], "mime_type"), want.mime)
			}
		})

		t.Run("T-025 image metadata is a JSON-encoded string kept verbatim", func(t *testing.T) {
			id := env.store(t, "alice", M{"thread_id": "t025", "source": "user", "text": "meta", "images": []M{
				{"data": pngB64(), "metadata": ""},
				{"data": pngB64()},
				{"data": pngB64(), "metadata": `{"caption": "x"}`},
			}})
			images := objs(t, arr(t, env.getOne(t, "alice", id), "images"))
			wantEqual(t, "empty metadata round-trips", str(t, images[0], "metadata"), "")
			if hasKey(images[1], "metadata") {
				t.Fatalf("absent image metadata must omit the key: %s", mustJSON(images[1]))
			}
			wantEqual(t, "string metadata verbatim", str(t, images[2], "metadata"), `{"caption": "x"}`)
			res := env.call(t, "alice", "store_context_batch", M{"atomic": false, "entries": []M{
				{"thread_id": "t025", "source": "agent", "text": "b", "images": []M{{"data": pngB64(), "metadata": M{"caption": "x"}}}},
			}}).ok(t)
			wantEqual(t, "batch error", str(t, objs(t, arr(t, res, "results"))[0], "error"),
				"Image 0 metadata must be a JSON-encoded string (got dict)")
		})

		t.Run("T-026 invalid images are refused", func(t *testing.T) {
			before := env.total(t, "alice")
			storeImgs := func(images any) string {
				return env.call(t, "alice", "store_context", M{"thread_id": "t026", "source": "user", "text": "x", "images": images}).err(t)
			}
			wantPrefix(t, "invalid base64", storeImgs([]M{{"data": "!!!!"}}), "Image 0 has invalid base64 encoding: Invalid base64 data (")
			wantPrefix(t, "invalid second image", storeImgs([]M{{"data": pngB64()}, {"data": "!!!!"}}), "Image 1 has invalid base64 encoding: Invalid base64 data (")
			wantEqual(t, "missing data", storeImgs([]M{{"mime_type": "image/png"}}), `Image 0 is missing required "data" field`)
			wantEqual(t, "blank data", storeImgs([]M{{"data": "   "}}), `Image 0 has empty "data" field`)
			wantEqual(t, "zero bytes", storeImgs([]M{{"data": "data:image/png;base64,"}}), `Image 0 "data" decodes to zero bytes (not valid base64 image content)`)
			eleven := make([]M, 11)
			for i := range eleven {
				eleven[i] = M{"data": pngB64()}
			}
			storeImgs(eleven) // a schema or a body refusal: any isError
			res := env.call(t, "alice", "store_context_batch", M{"atomic": false, "entries": []M{
				{"thread_id": "t026", "source": "user", "text": "x", "images": eleven},
				{"thread_id": "t026", "source": "user", "text": "y", "images": []M{{"data": "!!!!"}}},
			}}).ok(t)
			items := objs(t, arr(t, res, "results"))
			wantEqual(t, "batch 11 images", str(t, items[0], "error"), "Too many images: 11 provided, maximum is 10 per entry")
			wantEqual(t, "batch invalid base64", str(t, items[1], "error"), "Image 0 has invalid base64 encoding")
			wantEqual(t, "total after refusals", env.total(t, "alice"), before)
		})

		t.Run("T-027 include_images=false omits images; text entries never carry them", func(t *testing.T) {
			img := env.store(t, "alice", M{"thread_id": "t027", "source": "user", "text": "img", "images": []M{{"data": pngB64()}}})
			txt := env.storeText(t, "alice", "t027", "agent", "plain")
			got := env.call(t, "alice", "get_context_by_ids", M{"context_ids": []string{img, txt}, "include_images": false}).list(t)
			for _, e := range got {
				if hasKey(e, "images") {
					t.Fatalf("include_images=false: entry %s carries images", str(t, e, "id"))
				}
			}
			for _, e := range env.get(t, "alice", img, txt) {
				if str(t, e, "id") == txt && hasKey(e, "images") {
					t.Fatalf("text entry carries an images key: %s", mustJSON(e))
				}
				if str(t, e, "id") == img && len(arr(t, e, "images")) != 1 {
					t.Fatalf("include_images defaults to true: %s", mustJSON(e))
				}
			}
		})

		t.Run("dedup merge keeps images when omitted and recomputes content_type", func(t *testing.T) {
			id := env.store(t, "alice", M{"thread_id": "dedup-img", "source": "user", "text": "same", "images": []M{{"data": pngB64()}}})
			wantEqual(t, "merge without images", env.storeText(t, "alice", "dedup-img", "user", "same"), id)
			e := env.getOne(t, "alice", id)
			wantEqual(t, "content_type kept", str(t, e, "content_type"), "multimodal")
			wantEqual(t, "images kept", len(arr(t, e, "images")), 1)
			env.store(t, "alice", M{"thread_id": "dedup-img", "source": "user", "text": "same", "images": []M{}})
			e = env.getOne(t, "alice", id)
			wantEqual(t, "content_type after images=[]", str(t, e, "content_type"), "text")
			if hasKey(e, "images") {
				t.Fatalf("images key on a text entry: %s", mustJSON(e))
			}
		})
	})
}

func TestConformanceImageSizeLimits(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		mib := 1 << 20
		b64 := func(n int) string { return base64.StdEncoding.EncodeToString(make([]byte, n)) }
		before := env.total(t, "alice")
		got := env.call(t, "alice", "store_context", M{"thread_id": "size", "source": "user", "text": "big",
			"images": []M{{"data": b64(mib + 1)}}}).err(t)
		wantEqual(t, "per-image limit", got, "Image 0 exceeds 1MB limit")
		got = env.call(t, "alice", "store_context", M{"thread_id": "size", "source": "user", "text": "many",
			"images": []M{{"data": b64(mib * 9 / 10)}, {"data": b64(mib * 9 / 10)}, {"data": b64(mib * 9 / 10)}}}).err(t)
		wantEqual(t, "total limit", got, "Total image size exceeds 2MB limit")
		wantEqual(t, "total after refusals", env.total(t, "alice"), before)
		env.store(t, "alice", M{"thread_id": "size", "source": "user", "text": "exactly 1 MiB", "images": []M{{"data": b64(mib)}}})
	}, withConfig(func(c *contextd.Config) { c.MaxImageSizeMB, c.MaxTotalSizeMB = 1, 2 }), withParallelKinds())
}

func TestConformanceGetSummary(t *testing.T) {
	t.Run("T-028 disabled: no summary key", func(t *testing.T) {
		forEachStore(t, func(t *testing.T, env *env) {
			id := env.storeText(t, "alice", "t028", "user", "short")
			if e := env.getOne(t, "alice", id); hasKey(e, "summary") {
				t.Fatalf("summary key present with GET_CONTEXT_BY_IDS_INCLUDE_SUMMARY=false: %s", mustJSON(e))
			}
		})
	})
	t.Run("T-028 enabled without a summary: empty string", func(t *testing.T) {
		forEachStore(t, func(t *testing.T, env *env) {
			id := env.storeText(t, "alice", "t028", "user", "short")
			wantEqual(t, "summary", str(t, env.getOne(t, "alice", id), "summary"), "")
		}, withIncludeSummary())
	})
}
