package request

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParseID(t *testing.T) {
	full := "0190abcdef1234567890abcdef123456"
	cases := []struct {
		name, in, full, prefix, err string
	}{
		{"canonical", full, full, "", ""},
		{"hyphenated upper with spaces", " 0190ABCD-EF12-3456-7890-ABCDEF123456 ", full, "", ""},
		{"prefix 8", "0190abcd", "", "0190abcd", ""},
		{"prefix 31", full[:31], "", full[:31], ""},
		{"too short", "0190abc", "", "", "Invalid UUID identifier length (expected 32 hex chars after normalization): '0190abc'"},
		{"non-hex full", "g190abcdef1234567890abcdef123456", "", "", "Invalid UUID identifier (non-hex character): 'g190abcdef1234567890abcdef123456'"},
		{"non-hex prefix", "0190abcg", "", "", "Invalid UUID identifier length"},
		{"too long", full + "0", "", "", "Invalid UUID identifier length"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := ParseID(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("ParseID(%q) error = %v, want %q", c.in, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseID(%q): %v", c.in, err)
			}
			if f.Full != c.full || f.Prefix != c.prefix {
				t.Fatalf("ParseID(%q) = %+v, want full %q prefix %q", c.in, f, c.full, c.prefix)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	long := strings.Repeat("x", 400)
	spaced := strings.Repeat("a", 250) + " " + strings.Repeat("b", 149)
	early := strings.Repeat("a", 100) + " " + strings.Repeat("b", 299)
	cases := []struct {
		name, in, want string
		cut            bool
	}{
		{"short", strings.Repeat("x", 300), strings.Repeat("x", 300), false},
		{"no spaces", long, strings.Repeat("x", 300) + "...", true},
		{"space at 250", spaced, strings.Repeat("a", 250) + "...", true},
		{"space too early", early, early[:300] + "...", true},
		{"runes not bytes", strings.Repeat("é", 300), strings.Repeat("é", 300), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, cut := Truncate(c.in, 300)
			if got != c.want || cut != c.cut {
				t.Fatalf("Truncate = %q,%v want %q,%v", got, cut, c.want, c.cut)
			}
		})
	}
}

func TestNormalizeTags(t *testing.T) {
	got := NormalizeTags([]string{"Alpha", " alpha ", "alpha", "Beta", "  ", "two words"})
	want := []string{"alpha", "beta", "two words"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("NormalizeTags = %q, want %q", got, want)
	}
	if NormalizeTags(nil) != nil {
		t.Fatal("nil tags must stay nil (absent)")
	}
	if got := NormalizeTags([]string{}); got == nil || len(got) != 0 {
		t.Fatal("empty tags must stay empty, not absent")
	}
}

func TestDecodeBase64(t *testing.T) {
	cases := []struct {
		name, in, want string
		ok             bool
	}{
		{"plain", "aGVsbG8=", "hello", true},
		{"unpadded", "aGVsbG8", "hello", true},
		{"data url and newlines", "data:image/png;base64,aGVs\nbG8=", "hello", true},
		{"url-safe alphabet", "-_8=", "\xfb\xff", true},
		{"garbage", "!!!!", "", false},
		{"one char", "a", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := DecodeBase64(c.in)
			if (err == nil) != c.ok || (c.ok && string(got) != c.want) {
				t.Fatalf("DecodeBase64(%q) = %q, %v", c.in, got, err)
			}
		})
	}
}

func TestCheckIndexedValue(t *testing.T) {
	cases := []struct {
		name, typ string
		v         any
		err       string
	}{
		{"string ok", "string", strings.Repeat("a", 512), ""},
		{"string too long", "string", strings.Repeat("a", 513), "metadata field 'f' is indexed and its value is too long: 513 characters, maximum is 512 characters"},
		{"list measured as json", "string", []any{strings.Repeat("a", 510)}, "too long: 514 characters"},
		{"hex int", "integer", "0x10", ""},
		{"underscore int", "integer", "1_000", ""},
		{"leading zero decimal", "integer", "010", ""},
		{"bad int", "integer", "abc", "metadata field 'f' is indexed as integer and its value is not a valid integer: 'abc'"},
		{"out of range", "integer", 3000000000.0, "metadata field 'f' is indexed as integer and its value is out of range: 3000000000 (the supported range is -2147483648 to 2147483647)"},
		{"float given to int", "integer", 1.5, "not a valid integer"},
		{"list in int", "integer", []any{1.0}, "metadata field 'f' is indexed as integer and a list value cannot be stored in it"},
		{"dict in bool", "boolean", map[string]any{}, "a dict value cannot be stored in it"},
		{"bool words", "boolean", "Ye", ""},
		{"json bool", "boolean", true, ""},
		{"bad bool", "boolean", "o", "not a valid boolean"},
		{"float exp", "float", "1.5e3", ""},
		{"float inf", "float", "-Infinity", ""},
		{"float hex int", "float", "0x1F", ""},
		{"bad float", "float", "1.2.3", "not a valid float"},
		{"null passes", "integer", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckIndexedValue("f", c.typ, c.v)
			if c.err == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error = %v, want %q", err, c.err)
			}
		})
	}
}

func TestParseDateRange(t *testing.T) {
	cases := []struct {
		name, start, end string
		wantStart        string
		wantEnd          string
		err              string
	}{
		{"end of day", "", "2025-11-29", "", "2025-11-29T23:59:59.999999Z", ""},
		{"offset", "2025-11-29T10:00:00+02:00", "", "2025-11-29T08:00:00Z", "", ""},
		{"naive is utc", "2025-11-29T10:00:00", "", "2025-11-29T10:00:00Z", "", ""},
		{"z suffix", "2025-11-29T10:00:00Z", "", "2025-11-29T10:00:00Z", "", ""},
		{"compact", "20251129", "", "2025-11-29T00:00:00Z", "", ""},
		{"same day", "2025-11-29", "2025-11-29", "2025-11-29T00:00:00Z", "2025-11-29T23:59:59.999999Z", ""},
		{"reversed", "2025-11-30", "2025-11-29", "", "", "Invalid date range: start_date (2025-11-30) is after end_date (2025-11-29T23:59:59.999999)"},
		{"bad format", "29-11-2025", "", "", "", `Invalid start_date format: "29-11-2025". Use ISO 8601 format (e.g., "2025-11-29" or "2025-11-29T10:00:00")`},
		{"bad end", "", "2025-13-01", "", "", `Invalid end_date format: "2025-13-01"`},
		{"sub-minute", "2025-11-29T10:00:00+05:30:15", "", "", "", "A timezone offset with sub-minute precision"},
		{"whole minute", "2025-11-29T10:00:00+05:30", "", "2025-11-29T04:30:00Z", "", ""},
		{"week date", "2025-W48-6", "", "2025-11-29T00:00:00Z", "", ""},
		{"week date compact end", "", "2025W486", "", "2025-11-29T23:59:59.999999Z", ""},
		{"week 1 of 2026", "2026-W01", "", "2025-12-29T00:00:00Z", "", ""},
		{"week 54", "2025-W54", "", "", "", "Invalid start_date format"},
		// An end bound to the second covers the whole second, as rendered
		// timestamps are; a start bound, or an end with a fraction, is exact.
		{"end to the second", "2025-11-29T10:00:05Z", "2025-11-29T10:00:05Z", "2025-11-29T10:00:05Z", "2025-11-29T10:00:05.999999Z", ""},
		{"end to the second with offset", "", "2025-11-29T12:00:05+02:00", "", "2025-11-29T10:00:05.999999Z", ""},
		{"end with a fraction", "", "2025-11-29T10:00:05.25", "", "2025-11-29T10:00:05.25Z", ""},
		{"end to the minute", "", "2025-11-29T10:00", "", "2025-11-29T10:00:00.999999Z", ""},
		{"reversed within a second", "2025-11-29T10:00:06", "2025-11-29T10:00:05", "", "", "Invalid date range: start_date (2025-11-29T10:00:06) is after end_date (2025-11-29T10:00:05.999999)"},
		{"feb 30", "2025-02-30", "", "", "", "Invalid start_date format"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, e, err := ParseDateRange(c.start, c.end)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f := func(tm *time.Time) string {
				if tm == nil {
					return ""
				}
				return tm.Format("2006-01-02T15:04:05.999999Z07:00")
			}
			if f(s) != c.wantStart || f(e) != c.wantEnd {
				t.Fatalf("got %s..%s want %s..%s", f(s), f(e), c.wantStart, c.wantEnd)
			}
		})
	}
}

func TestParseMetaFilter(t *testing.T) {
	cases := []struct {
		name string
		in   map[string]any
		err  string
	}{
		{"eq default", map[string]any{"key": "status", "value": "x"}, ""},
		{"nested", map[string]any{"key": "user.preferences.theme", "operator": "eq", "value": "dark"}, ""},
		{"digit segment", map[string]any{"key": "items.0", "value": 1.0}, "Invalid metadata key: items.0."},
		{"empty segment", map[string]any{"key": "a..b", "value": 1.0}, "Invalid metadata key: a..b."},
		{"sql", map[string]any{"key": "status; DROP", "value": 1.0}, "Only alphanumeric characters"},
		{"in too many", map[string]any{"key": "k", "operator": "in", "value": make([]any, 101)}, "at most 100"},
		{"in not list", map[string]any{"key": "k", "operator": "in", "value": "a"}, "Operator in requires a list value"},
		{"in empty", map[string]any{"key": "k", "operator": "in", "value": []any{}}, "Operator in requires a non-empty list"},
		{"gt bool", map[string]any{"key": "k", "operator": "gt", "value": true}, "Operator gt requires a numeric or string value, not a boolean"},
		{"eq null", map[string]any{"key": "k", "operator": "eq"}, "Operator eq requires a non-null scalar value"},
		{"eq list", map[string]any{"key": "k", "operator": "eq", "value": []any{1.0}}, "Operator eq requires a scalar value, not a list"},
		{"contains number", map[string]any{"key": "k", "operator": "contains", "value": 5.0}, "Operator contains requires a string value"},
		{"extra key", map[string]any{"key": "k", "op": "gt", "value": 1.0}, "op: Extra inputs are not permitted"},
		{"unknown operator", map[string]any{"key": "k", "operator": "regex", "value": "a"}, "operator: Input should be one of"},
		{"beyond int64", map[string]any{"key": "k", "operator": "eq", "value": json.Number("99999999999999999999")}, "integer values must fit in 64 bits"},
		{"big float ok", map[string]any{"key": "k", "operator": "gt", "value": json.Number("1.5e300")}, ""},
		{"exists ignores value", map[string]any{"key": "k", "operator": "exists", "value": []any{1.0}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs := ParseMetaFilter(c.in)
			if c.err == "" {
				if len(errs) > 0 {
					t.Fatalf("unexpected errors %q", errs)
				}
				return
			}
			if len(errs) == 0 || !strings.Contains(strings.Join(errs, "\n"), c.err) {
				t.Fatalf("errors = %q, want %q", errs, c.err)
			}
			if !strings.HasPrefix(errs[0], "Invalid metadata filter {") {
				t.Fatalf("error %q lacks the filter wrapping", errs[0])
			}
		})
	}
}

func TestMergePatch(t *testing.T) {
	cases := []struct{ target, patch, want string }{
		{`{"status":"x","draft":true,"p":1}`, `{"status":"done","draft":null}`, `{"p":1,"status":"done"}`},
		{`{"a":{"b":1,"c":2}}`, `{"a":{"b":null}}`, `{"a":{"c":2}}`},
		{`{"a":[1,2]}`, `{"a":[3]}`, `{"a":[3]}`},
		{``, `{"a":1}`, `{"a":1}`},
		{`{}`, `{"a":{"b":null}}`, `{"a":{}}`},
		{`{"big":12345678901234567890}`, `{"x":1}`, `{"big":12345678901234567890,"x":1}`},
	}
	for _, c := range cases {
		var patch map[string]any
		if err := json.Unmarshal([]byte(c.patch), &patch); err != nil {
			t.Fatal(err)
		}
		got, err := MergePatch(json.RawMessage(c.target), patch)
		if err != nil || string(got) != c.want {
			t.Fatalf("MergePatch(%s, %s) = %s, %v; want %s", c.target, c.patch, got, err, c.want)
		}
	}
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2025-11-29", "2025-11-29T10:00:00+05:30", "20251129T1000", "2025-11-29 10:00:00.123456Z", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDate("start_date", s, true)
		if err == nil && d.Time.Location() != time.UTC {
			t.Fatalf("parsed %q to a non-UTC instant", s)
		}
	})
}

func FuzzParseID(f *testing.F) {
	for _, s := range []string{"0190abcdef1234567890abcdef123456", "0190abcd-ef12-3456-7890-abcdef123456", "0190abcd", "zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		if err != nil {
			return
		}
		if id.Full != "" && (len(id.Full) != 32 || !IsHex(id.Full)) {
			t.Fatalf("ParseID(%q) gave bad full id %q", s, id.Full)
		}
		if id.Prefix != "" && (len(id.Prefix) < 8 || len(id.Prefix) > 31 || !IsHex(id.Prefix)) {
			t.Fatalf("ParseID(%q) gave bad prefix %q", s, id.Prefix)
		}
	})
}

func FuzzDecodeBase64(f *testing.F) {
	for _, s := range []string{"aGVsbG8=", "data:image/png;base64,aGVs\nbG8", "-_8", "!!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { _, _ = DecodeBase64(s) })
}

func FuzzParseMetaFilter(f *testing.F) {
	f.Add(`{"key":"a.b","operator":"in","value":[1,"x"]}`)
	f.Add(`{"key":"k","operator":"gt","value":true,"case_sensitive":1}`)
	f.Fuzz(func(t *testing.T, s string) {
		var m map[string]any
		if json.Unmarshal([]byte(s), &m) != nil {
			return
		}
		_, errs := ParseMetaFilter(m)
		for _, e := range errs {
			if !utf8.ValidString(e) && utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in message %q", e)
			}
		}
	})
}
