package request

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextd/contextd/cerrors"
)

// RuneLen is the length limits count in: Unicode code points.
func RuneLen(s string) int { return utf8.RuneCountInString(s) }

// CheckTextLen refuses a stripped text longer than o.MaxTextChars code
// points, in the wording of the thread_id cap. Counting stops early: a
// text of at most max bytes cannot hold more than max code points.
func CheckTextLen(text string, o Options) error {
	limit := o.MaxTextChars
	if limit <= 0 {
		limit = DefaultMaxTextChars
	}
	if len(text) <= limit {
		return nil
	}
	if n := RuneLen(text); n > limit {
		return cerrors.Invalidf("text is too long: %d characters, maximum is %d characters", n, limit)
	}
	return nil
}

// Unstorable reports why s cannot be stored on every backend, or "".
// what names the kind of string ("A string value", "A metadata key").
func Unstorable(what, s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return what + " contains an embedded NUL (U+0000) character: PostgreSQL cannot store it, so the same entry would store on SQLite but fail on PostgreSQL. Remove it before storing."
	}
	if !utf8.ValidString(s) {
		return what + " contains an unpaired UTF-16 surrogate (a code point that cannot be encoded as UTF-8): PostgreSQL cannot store it, so the same entry would store on SQLite but fail on PostgreSQL. Remove it before storing."
	}
	return ""
}

// CheckStorable fails with "<field>: <reason>" when s cannot be stored.
func CheckStorable(field, s string) error {
	if msg := Unstorable("A string value", s); msg != "" {
		return cerrors.Invalidf("%s: %s", field, msg)
	}
	return nil
}

// Truncated reports whether Truncate cuts s at limit: a search result's
// text_content is then not the whole text, and the result carries the
// passage that matched (retrieve.hydrate).
func Truncated(s string, limit int) bool { return RuneLen(s) > limit }

// Truncate cuts search-result text at limit code points, preferring the
// last space when it falls in the final 30% of the cut.
func Truncate(s string, limit int) (string, bool) {
	if !Truncated(s, limit) {
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

// WireTime is the timestamp format of every tool: second precision, UTC, Z.
func WireTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// ParseBoolWord reads the boolean words the reference accepts in its
// environment and for lax boolean arguments: true/false, 1/0, yes/no,
// on/off, in any case and with surrounding space; ok is false for any
// other word.
func ParseBoolWord(s string) (v, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes", "on":
		return true, true
	case "false", "0", "no", "off":
		return false, true
	}
	return false, false
}
