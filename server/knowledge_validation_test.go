package server_test

// Input validation of the knowledge tools: path and segment
// lengths are capped, and names, paths and texts that would be stored
// altered (an unpaired surrogate as U+FFFD, a NUL that PostgreSQL cannot
// hold, a container name's trailing newline dropped) are refused with a
// message saying which and why; nothing is stored.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/testtier"
)

func TestKnowledgeInputValidation(t *testing.T) { kStores(t, testKnowledgeInputValidation) }

func testKnowledgeInputValidation(t *testing.T, store string) {
	e := newKEnvOn(t, nil, store, contextd.Config{})
	if got := e.call("alice", "container_create", map[string]any{"name": "docs"}); !strings.HasPrefix(got, "Container 'docs' created.") {
		t.Fatalf("container_create: %s", got)
	}
	up := func(args map[string]any) string {
		args["containerId"] = "docs"
		if _, ok := args["textContent"]; !ok {
			args["textContent"] = "hello"
		}
		if _, ok := args["fileName"]; !ok {
			args["fileName"] = "a.txt"
		}
		return e.call("alice", "upload_file", args)
	}
	seg := func(n int) string { return strings.Repeat("s", n) }
	// A huge segment is refused as any long one is. The long tier sends
	// 20,000,000 characters (a request far past any real path, through
	// JSON decoding and the engine on every store kind); the quick tier
	// 65,536, which takes the same path in a fraction of the time.
	huge := 65_536
	if testtier.On(t) {
		huge = 20_000_000
	}
	const (
		segMsg   = "Error: Path segment exceeds maximum length of 255 characters."
		pathMsg  = "Error: Path exceeds maximum length of 1024 characters."
		nameMsg  = "Error: Filename must be valid Unicode: it contains an unpaired UTF-16 surrogate or invalid UTF-8, which would be stored as U+FFFD."
		pathUMsg = "Error: Path must be valid Unicode: it contains an unpaired UTF-16 surrogate or invalid UTF-8, which would be stored as U+FFFD."
	)
	for _, c := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"segment of 256", map[string]any{"path": "/a/" + seg(256) + "/"}, segMsg},
		{fmt.Sprintf("segment of %d", huge), map[string]any{"path": seg(huge)}, segMsg},
		{"segment of 256 multi-byte", map[string]any{"path": strings.Repeat("é", 256)}, segMsg},
		{"path of 1025", map[string]any{"path": strings.TrimSuffix(strings.Repeat(seg(204)+"/", 5), "/") + "/xxxx"}, pathMsg},
		{"lone surrogate in fileName", map[string]any{"fileName": json.RawMessage(`"a\ud800.txt"`)}, nameMsg},
		{"invalid UTF-8 in fileName", map[string]any{"fileName": json.RawMessage("\"a\xff.txt\"")}, nameMsg},
		{"lone surrogate in path", map[string]any{"path": json.RawMessage(`"/x\udc00/"`)}, pathUMsg},
		{"NUL in textContent", map[string]any{"textContent": "before\x00after"},
			"Error: File 'a.txt' contains a NUL (U+0000) character, which cannot be stored as text. Remove it before uploading."},
		{"lone surrogate in textContent", map[string]any{"textContent": json.RawMessage(`"x\ud800"`)}, "Error: File 'a.txt' is not valid UTF-8 text."},
	} {
		if got := up(c.args); got != c.want {
			t.Errorf("%s: got %.300q, want %q", c.name, got, c.want)
		}
	}
	// At the limits: a segment of 255 and a path of 1,024 characters
	// ("/" first and last included) are stored.
	if got := up(map[string]any{"path": "/" + seg(255) + "/"}); !strings.HasPrefix(got, "File 'a.txt' uploaded to /"+seg(255)+"/a.txt") {
		t.Fatalf("segment of 255: %.200s", got)
	}
	path1024 := "/" + strings.Repeat(seg(203)+"/", 5) + "bb/"
	if len(path1024) != 1024 {
		t.Fatalf("path1024 is %d", len(path1024))
	}
	if got := up(map[string]any{"path": path1024}); !strings.HasPrefix(got, "File 'a.txt' uploaded to "+path1024+"a.txt") {
		t.Fatalf("path of 1024: %.200s", got)
	}
	if got := up(map[string]any{"path": path1024 + "c"}); got != pathMsg {
		t.Fatalf("path of 1025 (one segment more): %.200s", got)
	}

	// bulk_upload reads its files from a JSON text: an unpaired surrogate
	// in it is refused per item too.
	files := `[{"filename":"ok.md","content":"fine"},{"filename":"b\ud800.md","content":"x"},` +
		`{"filename":"c.md","content":"x","folderPath":"/\udfff/"},{"filename":"d.md","content":"x\u0000y"}]`
	got := e.call("alice", "bulk_upload", map[string]any{"containerId": "docs", "files": files})
	for _, want := range []string{nameMsg[len("Error: "):], pathUMsg[len("Error: "):],
		"d.md: File 'd.md' contains a NUL (U+0000) character"} {
		if !strings.Contains(got, want) {
			t.Errorf("bulk_upload: no %q in\n%s", want, got)
		}
	}
	listing := e.call("alice", "list_files", map[string]any{"containerId": "docs", "path": "/"})
	if strings.Contains(listing, "\ufffd") || strings.Contains(listing, "d.md") || strings.Contains(listing, seg(256)) {
		t.Errorf("list_files shows a refused upload:\n%.500s", listing)
	}
	if !strings.Contains(listing, "ok.md") {
		t.Errorf("list_files lacks ok.md:\n%.500s", listing)
	}

	// Container names: surrounding spaces are trimmed as before, a
	// control character is refused instead of dropped.
	for name, want := range map[string]string{
		"docs2\n":                "Error: Container name must not contain control characters.",
		"\tdocs3":                "Error: Container name must not contain control characters.",
		"test\u0000box":          "Error: Container name must not contain control characters.",
		"  spaced  ":             "Container 'spaced' created.",
		"UPPER":                  "Error: Container name must be 2-128 chars, lowercase alphanumeric and hyphens.",
		strings.Repeat("a", 129): "Error: Container name must be 2-128 chars, lowercase alphanumeric and hyphens.",
	} {
		if got := e.call("alice", "container_create", map[string]any{"name": name}); !strings.HasPrefix(got, want) {
			t.Errorf("container_create %q: got %q, want %q", name, got, want)
		}
	}
	for desc, want := range map[string]string{
		`"nul\u0000inside"`: "Error: Container description must not contain a NUL (U+0000) character: it cannot be stored.",
		`"lone \ud800"`:     "Error: Container description must be valid Unicode: it contains an unpaired UTF-16 surrogate or invalid UTF-8, which would be stored as U+FFFD.",
	} {
		got := e.call("alice", "container_create", map[string]any{"name": "described", "description": json.RawMessage(desc)})
		if got != want {
			t.Errorf("container_create description %s: got %q, want %q", desc, got, want)
		}
	}
	if list := e.call("alice", "container_list", nil); strings.Contains(list, "docs2") || strings.Contains(list, "described") {
		t.Errorf("container_list shows a refused container:\n%s", list)
	}
}
