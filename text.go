package contextd

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// pyStrip removes what Python's str.strip() removes: Unicode white space
// and the information separators U+001C..U+001F.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
	})
}

// pyQuote renders s the way Python's repr() does, since the reference
// messages quote caller values with {x!r}.
func pyQuote(s string) string {
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

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// unstorable reports why s cannot be stored on every backend, or "".
// what names the kind of string ("A string value", "A metadata key").
func unstorable(what, s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return what + " contains an embedded NUL (U+0000) character: PostgreSQL cannot store it, so the same entry would store on SQLite but fail on PostgreSQL. Remove it before storing."
	}
	if !utf8.ValidString(s) {
		return what + " contains an unpaired UTF-16 surrogate (a code point that cannot be encoded as UTF-8): PostgreSQL cannot store it, so the same entry would store on SQLite but fail on PostgreSQL. Remove it before storing."
	}
	return ""
}

// checkStorable fails with "<field>: <reason>" when s cannot be stored.
func checkStorable(field, s string) error {
	if msg := unstorable("A string value", s); msg != "" {
		return invalidf("%s: %s", field, msg)
	}
	return nil
}

// truncate cuts search-result text at limit code points, preferring the
// last space when it falls in the final 30% of the cut.
func truncate(s string, limit int) (string, bool) {
	if runeLen(s) <= limit {
		return s, false
	}
	r := []rune(s)[:limit]
	cut := string(r)
	if i := lastRuneIndex(r, ' '); float64(i) > 0.7*float64(limit) {
		cut = string(r[:i])
	}
	return cut + "...", true
}

func lastRuneIndex(r []rune, c rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] == c {
			return i
		}
	}
	return -1
}

// wireTime is the timestamp format of every tool: second precision, UTC, Z.
func wireTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }
