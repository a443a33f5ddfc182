package server_test

import (
	"testing"
	"unicode/utf8"
)

// navigate calls navigate_context as principal and fails on a tool error.
func (e *env) navigate(t *testing.T, principal string, args M) M {
	t.Helper()
	return e.call(t, principal, "navigate_context", args).ok(t)
}

// walkNodes calls fn on every node below root, depth first.
func walkNodes(t *testing.T, n M, fn func(M)) {
	t.Helper()
	for _, c := range objs(t, arr(t, n, "children")) {
		fn(c)
		walkNodes(t, c, fn)
	}
}

func nodeIDs(t *testing.T, resp M) []string {
	t.Helper()
	var ids []string
	walkNodes(t, obj(t, resp, "root"), func(n M) { ids = append(ids, str(t, n, "node_id")) })
	return ids
}

func TestConformanceNavigate(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		t.Run("T-096 basic outline", func(t *testing.T) {
			text := "# Intro\nhello\n## Details\nmore"
			id := env.storeText(t, "alice", "n96", "user", text)
			resp := env.navigate(t, "alice", M{"context_id": id})
			wantEqualJSON(t, "outline", resp, `{"context_id":"`+id+`","total_chars":29,"node_count":2,"root":{"node_id":"root","level":0,"ordinal":1,"title":"","char_start":0,"char_end":29,"summary":null,"children":[{"node_id":"intro","level":1,"ordinal":1,"title":"Intro","char_start":0,"char_end":29,"summary":null,"children":[{"node_id":"intro/details","level":2,"ordinal":1,"title":"Details","char_start":14,"char_end":29,"summary":null,"children":[]}]}]},"visibility":"private","is_owner":true}`)
		})

		t.Run("T-097 ids and collisions", func(t *testing.T) {
			cases := []struct {
				text string
				want []string
			}{
				{"# Notes\n# Notes", []string{"notes", "notes-2"}},
				{"# Notes\n# Notes 2\n# Notes", []string{"notes", "notes-2", "notes-3"}},
				{"# Root", []string{"root-2"}},
				{"#\ntext", []string{"section"}},
			}
			for _, c := range cases {
				id := env.storeText(t, "alice", "n97", "user", c.text)
				wantSlice(t, c.text, nodeIDs(t, env.navigate(t, "alice", M{"context_id": id})), c.want)
			}
		})

		t.Run("T-098 fences, setext, non-headings", func(t *testing.T) {
			cases := []struct {
				text string
				want []string
			}{
				{"```\n# hidden\n```\n# shown", []string{"shown"}},
				{"```\n# open fence\n## still shown", []string{"open-fence", "open-fence/still-shown"}},
				{"#foo\ntext", nil},
				{"Title\n=====", []string{"title"}},
				{"- item\n---", nil},
			}
			for _, c := range cases {
				id := env.storeText(t, "alice", "n98", "user", c.text)
				wantSlice(t, c.text, nodeIDs(t, env.navigate(t, "alice", M{"context_id": id})), c.want)
			}
		})

		t.Run("T-099 max_depth keeps ids and spans", func(t *testing.T) {
			id := env.storeText(t, "alice", "n99", "user", "# A\n## B\ntext\n# C\n## D")
			full := env.navigate(t, "alice", M{"context_id": id})
			top := env.navigate(t, "alice", M{"context_id": id, "max_depth": 1})
			wantEqual(t, "node_count", num(t, top, "node_count"), 2)
			wantSlice(t, "ids", nodeIDs(t, top), []string{"a", "c"})
			fa := objs(t, arr(t, obj(t, full, "root"), "children"))[0]
			ta := objs(t, arr(t, obj(t, top, "root"), "children"))[0]
			wantEqual(t, "span end", num(t, ta, "char_end"), num(t, fa, "char_end"))
			wantEqual(t, "folded children", len(arr(t, ta, "children")), 0)
		})

		t.Run("T-100 read by node id", func(t *testing.T) {
			id := env.storeText(t, "alice", "n100", "user", "# Intro\nhello\n## Details\nmore")
			wantPrefix(t, "details", str(t, env.readRange(t, "alice", M{"context_id": id, "node_id": "intro/details"}), "text"), "## Details")
			wantEqual(t, "root", str(t, env.readRange(t, "alice", M{"context_id": id, "node_id": "root"}), "text"), "# Intro\nhello\n## Details\nmore")
			wantEqual(t, "unknown", env.call(t, "alice", "read_context_range", M{"context_id": id, "node_id": "nope"}).err(t),
				"node_id 'nope' did not resolve to a section in this entry (it may have changed since navigate_context was called).")
		})

		t.Run("T-101 char clamping", func(t *testing.T) {
			id := env.storeText(t, "alice", "n101", "user", "short")
			wantEqualJSON(t, "clamped", env.readRange(t, "alice", M{"context_id": id, "start_char": 2, "end_char": 9999}),
				`{"context_id":"`+id+`","start_char":2,"end_char":5,"start_line":1,"end_line":1,"text":"ort","visibility":"private","is_owner":true}`)
			r := env.readRange(t, "alice", M{"context_id": id, "start_char": 7, "end_char": 3})
			wantEqual(t, "empty", str(t, r, "text"), "")
			wantEqual(t, "start", num(t, r, "start_char"), 5)
			wantEqual(t, "end", num(t, r, "end_char"), 5)
		})

		t.Run("T-102 line ranges", func(t *testing.T) {
			id := env.storeText(t, "alice", "n102", "user", "one\ntwo\nthree")
			r := env.readRange(t, "alice", M{"context_id": id, "start_line": 2, "end_line": 99})
			wantEqual(t, "text", str(t, r, "text"), "two\nthree")
			wantEqual(t, "end_line", num(t, r, "end_line"), 3)
			wantEqual(t, "start_char", num(t, r, "start_char"), 4)
			crlf := env.storeText(t, "alice", "n102", "user", "a\r\nb\r\n\r\nc")
			r = env.readRange(t, "alice", M{"context_id": crlf, "start_line": 1, "end_line": 3})
			wantEqual(t, "crlf text", str(t, r, "text"), "a\r\nb\r\n")
			wantEqual(t, "crlf end_line", num(t, r, "end_line"), 3)
			if !env.call(t, "alice", "read_context_range", M{"context_id": id, "start_line": 0}).failed() {
				t.Fatalf("start_line 0 accepted")
			}
		})

		t.Run("T-103 exactly one addressing mode", func(t *testing.T) {
			id := env.storeText(t, "alice", "n103", "user", "text")
			const msg = "Provide exactly one addressing mode: a character range (start_char/end_char), a line range (start_line/end_line), or a node_id."
			wantEqual(t, "two modes", env.call(t, "alice", "read_context_range", M{"context_id": id, "start_char": 0, "start_line": 1}).err(t), msg)
			wantEqual(t, "no mode", env.call(t, "alice", "read_context_range", M{"context_id": id}).err(t), msg)
			wantEqual(t, "char and node", env.call(t, "alice", "read_context_range", M{"context_id": id, "end_char": 2, "node_id": "root"}).err(t), msg)
		})

		t.Run("T-104 access", func(t *testing.T) {
			priv := env.storeText(t, "alice", "n104", "user", "# Private")
			pub := env.store(t, "alice", M{"thread_id": "n104", "source": "agent", "text": "# Public", "visibility": "public"})
			wantEqual(t, "navigate hidden", env.call(t, "bob", "navigate_context", M{"context_id": priv}).err(t), "Context entry not found: "+priv)
			wantEqual(t, "read hidden", env.call(t, "bob", "read_context_range", M{"context_id": priv, "node_id": "root"}).err(t), "Context entry not found: "+priv)
			resp := env.navigate(t, "bob", M{"context_id": pub[:12]})
			wantEqual(t, "resolved", str(t, resp, "context_id"), pub)
			wantEqual(t, "visibility", str(t, resp, "visibility"), "public")
			wantEqual(t, "is_owner", boolean(t, resp, "is_owner"), false)
			r := env.readRange(t, "bob", M{"context_id": pub, "start_char": 2})
			wantEqual(t, "text", str(t, r, "text"), "Public")
			wantEqual(t, "is_owner", boolean(t, r, "is_owner"), false)
			wantPrefix(t, "bad id", env.call(t, "alice", "navigate_context", M{"context_id": "zzzzzzzzzz"}).err(t), "Invalid context ID: ")
		})

		t.Run("node spans equal reads by node id (non-ASCII, CRLF)", func(t *testing.T) {
			docs := []string{
				"# 😀 Émoji 日本語\r\nintro 😀\r\n## Ｋelvin \u212a and ſ\r\nbody\r\n## naïve cafe\u0301\r\nend",
				"Title ✓\n=====\n\n```\n# not 😀\n```\n## Sub 日本\ncombining e\u0301\u0301\n### Deep\nx",
				"# Notes\n😀\n# Notes\n## Notes\n# Root\n#\n",
			}
			for _, text := range docs {
				id := env.storeText(t, "alice", "nspan", "user", text)
				resp := env.navigate(t, "alice", M{"context_id": id})
				stored := str(t, env.getOne(t, "alice", id), "text_content")
				wantEqual(t, "total_chars", int(num(t, resp, "total_chars")), utf8.RuneCountInString(stored))
				count := 0
				walkNodes(t, obj(t, resp, "root"), func(n M) {
					count++
					byNode := env.readRange(t, "alice", M{"context_id": id, "node_id": str(t, n, "node_id")})
					wantEqual(t, "start", num(t, byNode, "start_char"), num(t, n, "char_start"))
					wantEqual(t, "end", num(t, byNode, "end_char"), num(t, n, "char_end"))
					byChar := env.readRange(t, "alice", M{"context_id": id, "start_char": n["char_start"], "end_char": n["char_end"]})
					wantEqual(t, "same text", str(t, byChar, "text"), str(t, byNode, "text"))
					r := []rune(stored)
					wantEqual(t, "slice", str(t, byNode, "text"), string(r[int(num(t, n, "char_start")):int(num(t, n, "char_end"))]))
				})
				wantEqual(t, "node_count", count, int(num(t, resp, "node_count")))
			}
		})
	})
}
