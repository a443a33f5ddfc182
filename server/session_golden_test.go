package server_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Session goldens: each testdata/golden/sessions/*.txtar is a script of
// MCP tool calls and the exact results a client reads, run against a
// fresh SQLite engine with crafted ids and a fixed clock. A file holds
// pairs of sections:
//
//	-- call alice plan_context_sync --
//	{"thread_id": "kb:x", "manifest": []}
//	-- result --
//	error: manifest is empty: ...
//
// A result is the tool's JSON text, indented, or "error: " and the text
// of a tool error. `go test ./server -run TestSessionGoldens -update`
// rewrites the results from what the server answers now.
func TestSessionGoldens(t *testing.T) {
	files, err := filepath.Glob("../testdata/golden/sessions/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no session goldens: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ar := parseTxtar(data)
			if len(ar.Files)%2 != 0 {
				t.Fatalf("%s: sections must come in call/result pairs", path)
			}
			env := newEnv(t, storeKinds()[0], withCraftedIDs(), withNoEmbedder())
			changed := false
			for i := 0; i < len(ar.Files); i += 2 {
				call, want := &ar.Files[i], &ar.Files[i+1]
				f := strings.Fields(call.Name)
				if len(f) != 3 || f[0] != "call" || want.Name != "result" {
					t.Fatalf("%s: section %q/%q: want \"call PRINCIPAL TOOL\" then \"result\"", path, call.Name, want.Name)
				}
				var args M
				if err := json.Unmarshal(call.Data, &args); err != nil {
					t.Fatalf("%s: %s: arguments: %v", path, call.Name, err)
				}
				res := env.call(t, f[1], f[2], args)
				got := "error: " + res.text() + "\n"
				if !res.failed() {
					var buf bytes.Buffer
					if err := json.Indent(&buf, []byte(res.text()), "", "  "); err != nil {
						t.Fatalf("%s: %s: result is not JSON: %s", path, call.Name, res.text())
					}
					got = buf.String() + "\n"
				}
				if got != string(want.Data) {
					if !updating() {
						t.Errorf("%s: %s (section %d):\ngot:\n%swant:\n%s", path, call.Name, i/2+1, got, want.Data)
						continue
					}
					want.Data, changed = []byte(got), true
				}
			}
			if changed {
				if err := os.WriteFile(path, ar.format(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// updating reports -update, the flag package server's golden tests define.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// archive is a txtar archive (the format of golang.org/x/tools/txtar,
// read here in a few lines rather than adding that module): a comment,
// then files introduced by "-- name --" lines.
type archive struct {
	Comment []byte
	Files   []archiveFile
}

type archiveFile struct {
	Name string
	Data []byte
}

func parseTxtar(data []byte) *archive {
	ar := &archive{}
	cur := &ar.Comment
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		if name, ok := strings.CutPrefix(string(line), "-- "); ok && strings.HasSuffix(name, " --") {
			ar.Files = append(ar.Files, archiveFile{Name: strings.TrimSuffix(name, " --")})
			cur = &ar.Files[len(ar.Files)-1].Data
			continue
		}
		*cur = append(append(*cur, line...), '\n')
	}
	return ar
}

func (ar *archive) format() []byte {
	out := append([]byte(nil), ar.Comment...)
	for _, f := range ar.Files {
		out = append(out, "-- "+f.Name+" --\n"...)
		out = append(out, f.Data...)
	}
	return out
}
