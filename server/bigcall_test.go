package server

import (
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// randJSON writes a random JSON value of at most depth levels: strings
// with escapes, braces and quotes inside, numbers of every form (some
// beyond float64), literals, arrays and objects.
func randJSON(r *rand.Rand, b *strings.Builder, depth int) {
	k := r.IntN(8)
	if depth <= 0 && k >= 6 {
		k = r.IntN(6)
	}
	switch k {
	case 0, 1:
		pieces := []string{"a", "}", "{", "]", "[", `\"`, `\\`, `\u00e9`, "é", ",", ":", " ", `\n`, "1e400", "tools/call"}
		b.WriteByte('"')
		for range r.IntN(6) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		b.WriteByte('"')
	case 2:
		nums := []string{"0", "-1", "3.25", "1e308", "1e400", "-1e400", "2.5E-3", "12345678901234567", "1e-400", "9007199254740993"}
		b.WriteString(nums[r.IntN(len(nums))])
	case 3:
		b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
	case 4, 5:
		b.WriteString(strconv.Itoa(r.IntN(1000)))
	case 6:
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteString(", ")
			}
			randJSON(r, b, depth-1)
		}
		b.WriteByte(']')
	default:
		randObject(r, b, depth-1, nil)
	}
}

// randObject writes an object of random members, with the members of
// fixed (key, value) among them.
func randObject(r *rand.Rand, b *strings.Builder, depth int, fixed [][2]string) {
	keys := []string{"text", "}", `a\"b`, "n", "entries", "thread_id"}
	type member struct{ k, v string }
	var ms []member
	for range r.IntN(4) {
		var v strings.Builder
		randJSON(r, &v, depth)
		ms = append(ms, member{strconv.Quote(keys[r.IntN(len(keys))]), v.String()})
	}
	for _, f := range fixed {
		at := r.IntN(len(ms) + 1)
		ms = append(ms[:at], append([]member{{f[0], f[1]}}, ms[at:]...)...)
	}
	sp := []string{"", " ", "\n\t"}[r.IntN(3)]
	b.WriteString("{" + sp)
	for i, m := range ms {
		if i > 0 {
			b.WriteString("," + sp)
		}
		b.WriteString(m.k + sp + ":" + sp + m.v)
	}
	b.WriteString(sp + "}")
}

// randCall writes a tools/call message whose key spellings, duplicates
// and argument values vary.
func randCall(r *rand.Rand) string {
	pick := func(l ...string) string { return l[r.IntN(len(l))] }
	var args strings.Builder
	if r.IntN(6) == 0 {
		randJSON(r, &args, 2) // not always an object
	} else {
		randObject(r, &args, 3, nil)
	}
	params := [][2]string{{`"name"`, `"store_context"`}, {pick(`"arguments"`, `"arguments"`, `"arguments"`, `"arguments"`, `"arguments"`, `"Arguments"`, `"\u0061rguments"`), args.String()}}
	if r.IntN(8) == 0 {
		params = append(params, [2]string{`"arguments"`, `{"x":1}`})
	}
	if r.IntN(4) == 0 {
		params = append(params, [2]string{`"_meta"`, pick(`{"progressToken":1}`, `{"progressToken":"t","k":[1e400]}`, `"bad"`)})
	}
	var p strings.Builder
	randObject(r, &p, 1, params)
	top := [][2]string{{`"jsonrpc"`, `"2.0"`}, {`"id"`, "7"}, {pick(`"method"`, `"method"`, `"method"`, `"method"`, `"Method"`), pick(`"tools/call"`, `"tools/call"`, `"tools/call"`, `"tools/call"`, `"tools\/call"`, `"tools/list"`)},
		{pick(`"params"`, `"params"`, `"params"`, `"params"`, `"params"`, `"PARAMS"`, `"pa\u017fams"`), p.String()}}
	if r.IntN(10) == 0 {
		top = append(top, [2]string{`"params"`, `{"name":"x"}`})
	}
	var b strings.Builder
	randObject(r, &b, 0, top)
	return b.String()
}

// TestSplitArgumentsOracle: whenever splitArguments takes a call's
// arguments out, encoding/json decodes the original message into mcp-go's
// request exactly as it decodes the rewritten one, but with these
// arguments; the handler's own re-decoding (invalid text, long integers)
// would not have applied; and the request hook's check refuses exactly
// what decoding into mcp-go's type refuses.
func TestSplitArgumentsOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	took, refused := 0, 0
	for range 20000 {
		body := randCall(r)
		var want mcp.CallToolRequest
		wantErr := json.Unmarshal([]byte(body), &want)
		var check callToolCheck
		if gotErr := json.Unmarshal([]byte(body), &check); json.Valid([]byte(body)) && (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("check error %v, mcp-go's %v, for %s", gotErr, wantErr, body)
		}
		if wantErr != nil {
			refused++
		}
		msg, args, ok := splitArguments([]byte(body))
		if !ok {
			continue
		}
		took++
		var got mcp.CallToolRequest
		gotErr := json.Unmarshal(msg, &got)
		if wantErr != nil {
			// Refused for what is outside the arguments: still refused.
			if gotErr == nil {
				t.Fatalf("rewritten message %s decodes; mcp-go refuses the original (%v): %s", msg, wantErr, body)
			}
			continue
		}
		if gotErr != nil {
			t.Fatalf("rewritten message %s: %v (from %s)", msg, gotErr, body)
		}
		if _, pre := textPreservingArguments(want.Params.RawArguments); pre {
			t.Fatalf("took arguments the handler re-decodes: %s", body)
		}
		if _, ex := exactArguments(want.Params.RawArguments); ex {
			t.Fatalf("took arguments the handler re-decodes: %s", body)
		}
		if !reflect.DeepEqual(map[string]any(args), want.Params.Arguments) {
			t.Fatalf("arguments %v, mcp-go's %v, of %s", args, want.Params.Arguments, body)
		}
		if !reflect.DeepEqual(got.Params.Arguments, map[string]any{}) || string(got.Params.RawArguments) != "{}" {
			t.Fatalf("rewritten arguments %v of %s", got.Params.Arguments, msg)
		}
		got.Params.Arguments, got.Params.RawArguments = want.Params.Arguments, want.Params.RawArguments
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("rewritten request %+v, want %+v (%s -> %s)", got, want, body, msg)
		}
	}
	// The generator must reach both paths often, or the test proves little.
	if took < 1500 || took > 18000 || refused < 1000 {
		t.Fatalf("took the arguments of %d messages of 20000, %d refused", took, refused)
	}
	t.Logf("took the arguments of %d messages of 20000; mcp-go refused %d", took, refused)
}

// TestSplitArgumentsKeepsTheOrdinaryPath: messages whose arguments mcp-go
// and the handler treat specially are left whole.
func TestSplitArgumentsKeepsTheOrdinaryPath(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"n":1e400}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"n":123456789012345678901}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"t":"\ud800"}}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":{\"t\":\"\xff\"}}}",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":["a"]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","Arguments":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1},"arguments":{"a":2}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","PARAMS":{"name":"x","arguments":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"x","arguments":{"a":1}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}} x`,
	} {
		if _, _, ok := splitArguments([]byte(body)); ok {
			t.Errorf("took the arguments of %s", body)
		}
	}
}

// TestAdmissionRefusesWhatCannotFit: a large body is refused before it is
// read when memoryMultiple times its size exceeds the memory limit (413),
// or the room the large calls in progress leave (503), each with a text
// naming MEMORY_LIMIT_MB and the sizes; small bodies and a process
// without a limit are never refused, and a finished call gives its room
// back.
func TestAdmissionRefusesWhatCannotFit(t *testing.T) {
	const mib = 1 << 20
	limit := int64(8 * mib)
	a := &admission{limit: func() int64 { return limit }}
	reached := 0
	h := predecode(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		_, _ = io.Copy(io.Discard, r.Body)
	}), a)
	post := func(n int) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(strings.Repeat(" ", n)))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := post(5 * mib / 2); w.Code != http.StatusRequestEntityTooLarge || reached != 0 ||
		!strings.Contains(w.Body.String(), "a body of 2621440 bytes needs about 10 MiB") ||
		!strings.Contains(w.Body.String(), "limit of 8 MiB (MEMORY_LIMIT_MB)") {
		t.Fatalf("2.5 MiB against 8 MiB: %d %s (reached %d)", w.Code, w.Body, reached)
	}
	if w := post(2 * mib); w.Code != http.StatusOK || reached != 1 {
		t.Fatalf("2 MiB against 8 MiB: %d %s", w.Code, w.Body)
	}
	release, _, refusal := a.admit(mib) // a call in progress
	if refusal != "" {
		t.Fatal(refusal)
	}
	if w := post(3 * mib / 2); w.Code != http.StatusServiceUnavailable || reached != 1 ||
		!strings.Contains(w.Body.String(), "other large calls in progress hold 4 MiB of the server's limit of 8 MiB (MEMORY_LIMIT_MB)") {
		t.Fatalf("1.5 MiB beside 4 MiB held: %d %s", w.Code, w.Body)
	}
	if w := post(admittedMin - 1); w.Code != http.StatusOK || reached != 2 {
		t.Fatalf("a small body beside 4 MiB held: %d %s", w.Code, w.Body)
	}
	release()
	if w := post(3 * mib / 2); w.Code != http.StatusOK || reached != 3 {
		t.Fatalf("1.5 MiB once the other call ended: %d %s", w.Code, w.Body)
	}
	if a.held != 0 {
		t.Fatalf("%d bytes still held after every call ended", a.held)
	}
	limit = math.MaxInt64 // no MEMORY_LIMIT_MB
	if w := post(3 * mib); w.Code != http.StatusOK || reached != 4 {
		t.Fatalf("3 MiB without a limit: %d %s", w.Code, w.Body)
	}
}
