package server_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd"
)

// grep calls grep_context as principal and fails on a tool error.
func (e *env) grep(t *testing.T, principal string, args M) M {
	t.Helper()
	return e.call(t, principal, "grep_context", args).ok(t)
}

// readRange calls read_context_range as principal and returns its text.
func (e *env) readRange(t *testing.T, principal string, args M) M {
	t.Helper()
	return e.call(t, principal, "read_context_range", args).ok(t)
}

func grepRows(t *testing.T, resp M) []M {
	t.Helper()
	return objs(t, arr(t, resp, "results"))
}

func TestConformanceGrep(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		t.Run("T-086 content mode with context", func(t *testing.T) {
			id := env.storeText(t, "alice", "g86", "user", "first line\nsecond needle line\nthird line")
			resp := env.grep(t, "alice", M{"pattern": "needle", "thread_id": "g86", "output_mode": "content", "context_lines": 1})
			wantEqual(t, "mode", str(t, resp, "mode"), "content")
			wantEqual(t, "total", num(t, resp, "total_matches"), 1)
			wantEqual(t, "truncated", boolean(t, resp, "truncated"), false)
			rows := grepRows(t, resp)
			wantEqualJSON(t, "row", rows[0], `{"context_id":"`+id+`","line_number":2,"line":"second needle line","match_start":18,"match_end":24,"before":["first line"],"after":["third line"],"visibility":"private","is_owner":true}`)
			rr := env.readRange(t, "alice", M{"context_id": id, "start_char": rows[0]["match_start"], "end_char": rows[0]["match_end"]})
			wantEqual(t, "read back", str(t, rr, "text"), "needle")
			if hasKey(resp, "timed_out_context_ids") {
				t.Fatalf("timed_out_context_ids present without timeouts")
			}
		})

		t.Run("T-087 code-point offsets round-trip through read_context_range", func(t *testing.T) {
			texts := []struct{ text, pattern, want string }{
				{"héllo wörld 😀 needle", "needle", "needle"},
				{"日本語のテキスト 😀😀 検索語 end", "検索語", "検索語"},
				{"cafe\u0301 and cafe\u0301 again", "e\u0301 again", "e\u0301 again"},
				{"meaſure twice", "MEASURE", "meaſure"},
				{"temp 5 \u212aelvin", "kelvin", "\u212aelvin"},
				{"line one\r\nline 😀 two\r\nthree", "two", "two"},
			}
			for i, c := range texts {
				id := env.storeText(t, "alice", "g87", "user", c.text)
				resp := env.grep(t, "alice", M{"pattern": c.pattern, "output_mode": "content", "thread_id": "g87", "max_matches": 1})
				row := grepRows(t, resp)[0]
				wantEqual(t, "entry", str(t, row, "context_id"), id)
				rr := env.readRange(t, "alice", M{"context_id": id, "start_char": row["match_start"], "end_char": row["match_end"]})
				wantEqual(t, "matched text "+string(rune('0'+i)), str(t, rr, "text"), c.want)
			}
			resp := env.grep(t, "alice", M{"pattern": "needle", "output_mode": "content", "thread_id": "g87"})
			wantEqual(t, "emoji counts as one", num(t, grepRows(t, resp)[0], "match_start"), 14)
		})

		t.Run("T-088 literal vs regex, invalid regex", func(t *testing.T) {
			env.storeText(t, "alice", "g88", "user", "axb")
			wantEqual(t, "literal", num(t, env.grep(t, "alice", M{"pattern": "a.b", "thread_id": "g88"}), "total_matches"), 0)
			wantEqual(t, "regex", num(t, env.grep(t, "alice", M{"pattern": "a.b", "thread_id": "g88", "is_regex": true}), "total_matches"), 1)
			for _, p := range []string{"a(b", `(a)\1`, "(?=a)", "(?<=a)b"} {
				wantPrefix(t, "error", env.call(t, "alice", "grep_context", M{"pattern": p, "is_regex": true}).err(t), "Invalid regular expression: ")
			}
		})

		t.Run("T-089 truncated lookahead", func(t *testing.T) {
			env.storeText(t, "alice", "g89a", "user", "m\nm\nm")
			resp := env.grep(t, "alice", M{"pattern": "m", "thread_id": "g89a", "max_matches": 2, "output_mode": "content"})
			wantEqual(t, "total", num(t, resp, "total_matches"), 2)
			wantEqual(t, "truncated", boolean(t, resp, "truncated"), true)

			env.storeText(t, "alice", "g89b", "user", "zzz older")
			env.clock.advance(time.Second)
			env.storeText(t, "alice", "g89b", "agent", "m\nm")
			resp = env.grep(t, "alice", M{"pattern": "m", "thread_id": "g89b", "max_matches": 2})
			wantEqual(t, "exact fit total", num(t, resp, "total_matches"), 2)
			wantEqual(t, "exact fit truncated", boolean(t, resp, "truncated"), false)

			env.storeText(t, "alice", "g89c", "user", "older m")
			env.clock.advance(time.Second)
			env.storeText(t, "alice", "g89c", "agent", "m\nm")
			resp = env.grep(t, "alice", M{"pattern": "m", "thread_id": "g89c", "max_matches": 2})
			wantEqual(t, "extra match truncated", boolean(t, resp, "truncated"), true)
			wantEqual(t, "extra match total", num(t, resp, "total_matches"), 2)
		})

		t.Run("T-090 Unicode case folding", func(t *testing.T) {
			env.storeText(t, "alice", "g90", "user", "привет мир and meaſure")
			wantEqual(t, "cyrillic", num(t, env.grep(t, "alice", M{"pattern": "ПРИВЕТ", "thread_id": "g90"}), "total_matches"), 1)
			wantEqual(t, "long s", num(t, env.grep(t, "alice", M{"pattern": "measure", "thread_id": "g90"}), "total_matches"), 1)
			wantEqual(t, "case sensitive", num(t, env.grep(t, "alice", M{"pattern": "ПРИВЕТ", "thread_id": "g90", "case_sensitive": true}), "total_matches"), 0)
		})

		t.Run("T-091 regex anchors per line; literal newline never matches", func(t *testing.T) {
			id := env.storeText(t, "alice", "g91", "user", "x\r\nfoo\r\ny")
			resp := env.grep(t, "alice", M{"pattern": "^foo$", "is_regex": true, "thread_id": "g91", "output_mode": "content"})
			row := grepRows(t, resp)[0]
			wantEqual(t, "line", num(t, row, "line_number"), 2)
			wantEqual(t, "line text", str(t, row, "line"), "foo")
			rr := env.readRange(t, "alice", M{"context_id": id, "start_char": row["match_start"], "end_char": row["match_end"]})
			wantEqual(t, "read back", str(t, rr, "text"), "foo")
			wantEqual(t, "newline literal", num(t, env.grep(t, "alice", M{"pattern": "x\nfoo", "thread_id": "g91"}), "total_matches"), 0)
			wantEqual(t, "into CRLF", num(t, env.grep(t, "alice", M{"pattern": "x\r", "thread_id": "g91"}), "total_matches"), 0)
		})

		t.Run("T-092 count and files modes", func(t *testing.T) {
			id := env.storeText(t, "alice", "g92", "user", "x x x\nx X")
			env.storeText(t, "alice", "g92", "agent", "nothing here")
			resp := env.grep(t, "alice", M{"pattern": "x", "thread_id": "g92", "output_mode": "count", "case_sensitive": true})
			wantEqualJSON(t, "count", resp, `{"mode":"count","total_matches":4,"truncated":false,"results":[{"context_id":"`+id+`","count":4,"visibility":"private","is_owner":true}]}`)
			resp = env.grep(t, "alice", M{"pattern": "x", "thread_id": "g92"})
			wantEqualJSON(t, "files", resp, `{"mode":"files_with_matches","total_matches":5,"truncated":false,"results":[{"context_id":"`+id+`","match_count":5,"visibility":"private","is_owner":true}]}`)
		})

		t.Run("T-093 clamps", func(t *testing.T) {
			var lines []string
			for i := 0; i < 60; i++ {
				lines = append(lines, "row")
			}
			lines[30] = "target"
			env.storeText(t, "alice", "g93", "user", strings.Join(lines, "\n"))
			row := grepRows(t, env.grep(t, "alice", M{"pattern": "target", "thread_id": "g93", "output_mode": "content", "context_lines": 50}))[0]
			wantEqual(t, "before", len(arr(t, row, "before")), 20)
			wantEqual(t, "after", len(arr(t, row, "after")), 20)
			env.storeText(t, "alice", "g93b", "user", strings.Repeat("q ", 1500))
			resp := env.grep(t, "alice", M{"pattern": "q", "thread_id": "g93b", "max_matches": 5000})
			wantEqual(t, "max matches cap", num(t, resp, "total_matches"), 1000)
			wantEqual(t, "truncated", boolean(t, resp, "truncated"), true)
			wantEqualJSON(t, "too long", env.grep(t, "alice", M{"pattern": strings.Repeat("p", 32769)}),
				`{"mode":"files_with_matches","total_matches":0,"truncated":false,"results":[],"error":"Pattern too long: 32769 characters exceeds the maximum of 32768. Shorten the pattern.","validation_errors":["Pattern too long: 32769 characters exceeds the maximum of 32768. Shorten the pattern."]}`)
			resp = env.grep(t, "alice", M{"pattern": "q", "metadata_filters": []any{M{"key": "bad key!", "operator": "eq", "value": 1}}})
			wantEqual(t, "filter error", str(t, resp, "error"), "Metadata filter validation failed")
		})

		t.Run("T-094 newest first, thread scoping", func(t *testing.T) {
			a := env.storeText(t, "alice", "g94", "user", "shared word one")
			env.clock.advance(time.Second)
			b := env.storeText(t, "alice", "g94", "agent", "shared word two")
			env.storeText(t, "alice", "g94-other", "user", "shared word three")
			var ids []string
			for _, r := range grepRows(t, env.grep(t, "alice", M{"pattern": "shared word", "thread_id": "g94"})) {
				ids = append(ids, str(t, r, "context_id"))
			}
			wantSlice(t, "order", ids, []string{b, a})
		})

		t.Run("T-095 hidden entries never consume the scan budget", func(t *testing.T) {
			pub := env.store(t, "alice", M{"thread_id": "g95", "source": "user", "text": "visible hit", "visibility": "public"})
			env.clock.advance(time.Second)
			env.storeText(t, "alice", "g95", "agent", "hidden hit")
			resp := env.grep(t, "bob", M{"pattern": "hit", "thread_id": "g95", "max_entries_scanned": 1, "output_mode": "content"})
			rows := grepRows(t, resp)
			wantEqual(t, "rows", len(rows), 1)
			wantEqual(t, "entry", str(t, rows[0], "context_id"), pub)
			wantEqual(t, "is_owner", boolean(t, rows[0], "is_owner"), false)
			wantEqual(t, "visibility", str(t, rows[0], "visibility"), "public")
			wantEqual(t, "truncated", boolean(t, resp, "truncated"), false)
			resp = env.grep(t, "alice", M{"pattern": "hit", "thread_id": "g95", "max_entries_scanned": 1})
			wantEqual(t, "alice scan cut", boolean(t, resp, "truncated"), true)
			wantEqual(t, "alice total", num(t, resp, "total_matches"), 1)
		})

		t.Run("keyset scan across pages", func(t *testing.T) {
			// 450 entries with one created_at: pages of 200 must continue by id.
			for i := 0; i < 450; i += 100 {
				var items []any
				for j := i; j < i+100 && j < 450; j++ {
					items = append(items, M{"thread_id": "gpage", "source": "user", "text": fmt.Sprintf("pageword %d", j), "deduplicate": false})
				}
				env.call(t, "alice", "store_context_batch", M{"entries": items}).ok(t)
			}
			env.storeText(t, "bob", "gpage", "user", "pageword hidden from alice")
			resp := env.grep(t, "alice", M{"pattern": "pageword", "thread_id": "gpage", "max_matches": 1000})
			wantEqual(t, "total", num(t, resp, "total_matches"), 450)
			wantEqual(t, "truncated", boolean(t, resp, "truncated"), false)
			seen := map[string]bool{}
			for _, r := range grepRows(t, resp) {
				seen[str(t, r, "context_id")] = true
			}
			wantEqual(t, "distinct entries", len(seen), 450)
			resp = env.grep(t, "alice", M{"pattern": "pageword", "thread_id": "gpage", "max_entries_scanned": 300, "max_matches": 1000})
			wantEqual(t, "scan cap total", num(t, resp, "total_matches"), 300)
			wantEqual(t, "scan cap truncated", boolean(t, resp, "truncated"), true)
		})

		// A backtracking engine needs about 2^100000 steps here, so any
		// bound proves linear time; a tight one would only flake under
		// -race on a loaded machine (index/grep's TestPathological).
		t.Run("pathological regex finishes", func(t *testing.T) {
			env.storeText(t, "alice", "gpath", "user", strings.Repeat("a", 100_000)+"!")
			start := time.Now()
			resp := env.grep(t, "alice", M{"pattern": "(a+)+$", "is_regex": true, "thread_id": "gpath"})
			if d := time.Since(start); d > time.Minute {
				t.Fatalf("took %v", d)
			}
			wantEqual(t, "matches", num(t, resp, "total_matches"), 0)
		})
	})
}

func TestConformanceGrepBudgets(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		env.storeText(t, "alice", "gb", "user", "hit "+strings.Repeat("x", 40))
		env.clock.advance(time.Second)
		env.storeText(t, "alice", "gb", "agent", "hit "+strings.Repeat("y", 40))
		env.clock.advance(time.Second)
		env.storeText(t, "alice", "gb", "user", "hit "+strings.Repeat("z", 40))
		// A budget of 50 characters: the newest entry (44) is scanned, the
		// second crosses the budget and is still scanned, the third is not.
		resp := env.grep(t, "alice", M{"pattern": "hit", "thread_id": "gb"})
		wantEqual(t, "total", num(t, resp, "total_matches"), 2)
		wantEqual(t, "truncated", boolean(t, resp, "truncated"), true)
	}, withConfig(func(c *contextd.Config) { c.Grep.AggregateBytesBudget = 50 }))

	forEachStore(t, func(t *testing.T, env *env) {
		id := env.storeText(t, "alice", "gt", "user", strings.Repeat("abc\n", 2000)+"end")
		resp := env.grep(t, "alice", M{"pattern": "end", "is_regex": true, "thread_id": "gt"})
		wantSlice(t, "timed out", strs(t, resp, "timed_out_context_ids"), []string{id})
		wantEqual(t, "total", num(t, resp, "total_matches"), 0)
		wantEqual(t, "not truncated", boolean(t, resp, "truncated"), false)
		// Literal patterns have no regex budget.
		wantEqual(t, "literal", num(t, env.grep(t, "alice", M{"pattern": "end", "thread_id": "gt"}), "total_matches"), 1)
	}, withConfig(func(c *contextd.Config) { c.Grep.RegexTimeout = time.Nanosecond }))

	forEachStore(t, func(t *testing.T, env *env) {
		env.storeText(t, "alice", "gtt", "user", strings.Repeat("abc\n", 2000)+"end")
		env.storeText(t, "alice", "gtt", "user", "end")
		resp := env.grep(t, "alice", M{"pattern": "end", "is_regex": true, "thread_id": "gtt"})
		// The whole-scan budget is spent: the scan stops and says so.
		wantEqual(t, "truncated", boolean(t, resp, "truncated"), true)
	}, withConfig(func(c *contextd.Config) { c.Grep.RegexTotalTimeout = time.Nanosecond }))

	forEachStore(t, func(t *testing.T, env *env) {
		env.storeText(t, "alice", "gd", "user", "hit")
		if r := env.call(t, "alice", "grep_context", M{"pattern": "hit"}); !r.failed() {
			t.Fatalf("grep_context registered although disabled")
		}
	}, withDisabledTools("grep_context"))
}
