// Package pyfmt owns the Python-compatible text helpers that the reference
// implementation's messages are built from: str.strip(), repr() of a str
// and of a decoded JSON value, and json.dumps with its default separators.
// Error texts quote caller values with them, so a message reads byte for
// byte as the reference's; Abbrev is the shorter quoting of the server's
// argument errors. It imports nothing of the module, so every layer may
// use it: the outline of index/outline strips headings with it as the
// request checks strip their arguments.
//
//	pyfmt.Strip("\u3000 tag \x1f")                       // "tag"
//	pyfmt.Quote("it's")                                 // `"it's"`
//	pyfmt.Repr(map[string]any{"key": "k", "value": 1.0}) // "{'key': 'k', 'value': 1}"
//	pyfmt.JSON([]any{1.0, "a"})                          // `[1, "a"]`
package pyfmt

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Strip removes what Python's str.strip() removes: Unicode white space
// and the information separators U+001C..U+001F.
func Strip(s string) string {
	return strings.TrimFunc(s, isPySpace)
}

func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// Quote renders s the way Python's repr() does, since the reference
// messages quote caller values with {x!r}.
func Quote(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// Abbrev quotes s for a schema argument error: single quotes, at most 40
// characters and then "...". It is not Quote: an apostrophe is escaped
// rather than switching to double quotes, and non-printable characters
// take Go's escapes; the server's argument errors have always read so,
// and their texts are pinned by the conformance tests.
func Abbrev(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		r := []rune(s)
		s = string(r[:40]) + "..."
	}
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, "'", `\'`) + "'"
}

// Number renders a JSON number decoded as float64. Integral values below
// 1e15 print without a fraction: decoding cannot tell 3 from 3.0, and the
// reference saw an int for what the caller wrote as one.
func Number(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// Repr renders a decoded JSON value the way Python prints it (None, True,
// quoted strings, lists, dicts). Python keeps a dict's insertion order,
// which decoding loses: the keys named in keyOrder come first, in that
// order, and the rest follow sorted, at every depth.
func Repr(v any, keyOrder ...string) string {
	var b strings.Builder
	st := style{null: "None", yes: "True", no: "False", quote: Quote, keyOrder: keyOrder}
	st.write(&b, v)
	return b.String()
}

// JSON renders v as Python's json.dumps does by default (", " and ": "
// separators), which is the text an index stores for a non-string value.
// Keys are sorted so the text is deterministic; strings take Go's quoting
// (an index only measures this text, it never parses it back).
func JSON(v any) string {
	var b strings.Builder
	st := style{null: "null", yes: "true", no: "false", quote: strconv.Quote}
	st.write(&b, v)
	return b.String()
}

// style is how Repr and JSON differ: the literals, the string quoting and
// the order of a dict's keys.
type style struct {
	null, yes, no string
	quote         func(string) string
	keyOrder      []string
}

func (st *style) write(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString(st.null)
	case bool:
		if x {
			b.WriteString(st.yes)
		} else {
			b.WriteString(st.no)
		}
	case string:
		b.WriteString(st.quote(x))
	case float64:
		b.WriteString(Number(x))
	case []any:
		b.WriteByte('[')
		for i, el := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			st.write(b, el)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range orderedKeys(x, st.keyOrder) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(st.quote(k))
			b.WriteString(": ")
			st.write(b, x[k])
		}
		b.WriteByte('}')
	default:
		fmt.Fprint(b, x)
	}
}

// orderedKeys lists m's keys: those of first in its order, then the rest
// sorted.
func orderedKeys(m map[string]any, first []string) []string {
	keys := make([]string, 0, len(m))
	named := make(map[string]bool, len(first))
	for _, k := range first {
		if _, ok := m[k]; ok && !named[k] {
			keys = append(keys, k)
		}
		named[k] = true
	}
	rest := make([]string, 0, len(m))
	for k := range m {
		if !named[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}
