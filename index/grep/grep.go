// Package grep owns the matcher of grep_context: literal and regular
// expression patterns over one text, with match offsets in Unicode code
// points and line numbers over the "\n" / "\r\n" lines of package outline,
// and the scan of stored entries under grep_context's caps (Scan).
//
//	m, err := grep.Compile(grep.Options{Pattern: "needle"})
//	lines := outline.SplitLines(text)
//	ms, err := m.Find(lines, 100, time.Time{})
//	// ms[0].Start, ms[0].End slice exactly "needle" (or its case variant)
//
// Literal patterns search the whole text (a literal containing "\n" never
// matches, and a match reaching into a "\r\n" terminator is dropped);
// regular expressions run per line with multi-line anchors. Case-insensitive
// matching is RE2's Unicode simple case folding, which folds ſ to s and the
// Kelvin sign to k as Python's re does.
//
// Regular expressions are Go's RE2, not Python's regex: backreferences
// (\1), lookahead and lookbehind ((?=...), (?!...), (?<=...), (?<!...)),
// atomic groups and possessive quantifiers are not supported and fail to
// compile ("Invalid regular expression: ..."). RE2 runs in linear time, so
// no pattern can blow up; deadlines still bound very large scans.
package grep

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextd/contextd/index/outline"
)

// Options describe one pattern.
type Options struct {
	Pattern       string
	Regex         bool // false: literal substring
	CaseSensitive bool
}

// Match is one match: its 0-based line and its code-point span in the whole
// text (End exclusive).
type Match struct {
	Line       int
	Start, End int
}

// ErrTimeout reports that a deadline passed before the text was scanned.
var ErrTimeout = errors.New("grep: deadline exceeded")

// SyntaxError is an invalid regular expression.
type SyntaxError struct{ Err error }

func (e *SyntaxError) Error() string { return "Invalid regular expression: " + e.Err.Error() }
func (e *SyntaxError) Unwrap() error { return e.Err }

// Matcher is a compiled pattern; it is safe for concurrent use.
type Matcher struct {
	opt   Options
	re    *regexp.Regexp // nil for a case-sensitive literal
	never bool           // a literal containing "\n"
	// lowerASCII is the lower-cased pattern of a case-insensitive ASCII
	// literal: over ASCII text (which cannot hold ſ or the Kelvin sign)
	// byte-wise folding gives exactly RE2's matches, much faster.
	lowerASCII string
}

// Compile prepares a pattern.
func Compile(opt Options) (*Matcher, error) {
	m := &Matcher{opt: opt}
	if !opt.Regex {
		if strings.Contains(opt.Pattern, "\n") {
			m.never = true
			return m, nil
		}
		if !opt.CaseSensitive {
			m.re = regexp.MustCompile("(?i)" + regexp.QuoteMeta(opt.Pattern))
			if isASCII(opt.Pattern) {
				m.lowerASCII = strings.ToLower(opt.Pattern)
			}
		}
		return m, nil
	}
	flags := "(?m)"
	if !opt.CaseSensitive {
		flags = "(?mi)"
	}
	re, err := regexp.Compile(flags + opt.Pattern)
	if err != nil {
		// Report the caller's pattern, not the flags we prepended.
		var se *syntax.Error
		if errors.As(err, &se) {
			return nil, &SyntaxError{Err: fmt.Errorf("%s: `%s`", se.Code, strings.TrimPrefix(se.Expr, flags))}
		}
		return nil, &SyntaxError{Err: err}
	}
	m.re = re
	return m, nil
}

// checkEvery is how many lines pass between deadline checks.
const checkEvery = 256

// Find returns up to limit matches in l (limit <= 0: no limit), in text
// order. A non-zero deadline that passes mid-scan returns ErrTimeout.
func (m *Matcher) Find(l *outline.Lines, limit int, deadline time.Time) ([]Match, error) {
	if m.never || m.opt.Pattern == "" && !m.opt.Regex {
		return nil, nil
	}
	if !m.opt.Regex {
		return m.findLiteral(l, limit, deadline)
	}
	var out []Match
	for i := 0; i < l.Count(); i++ {
		if i%checkEvery == checkEvery-1 && !deadline.IsZero() && time.Now().After(deadline) {
			return out, ErrTimeout
		}
		line := l.Line(i)
		locs := m.re.FindAllStringIndex(line, -1)
		if len(locs) == 0 {
			continue
		}
		rc := newRuneCounter(line, l.RuneStart[i])
		for _, loc := range locs {
			out = append(out, Match{Line: i, Start: rc.at(loc[0]), End: rc.at(loc[1])})
			if limit > 0 && len(out) >= limit {
				return out, nil
			}
		}
	}
	return out, nil
}

// findLiteral searches the whole text, non-overlapping, left to right.
func (m *Matcher) findLiteral(l *outline.Lines, limit int, deadline time.Time) ([]Match, error) {
	var out []Match
	text := l.Text
	pat := m.opt.Pattern
	useRE := m.re != nil
	if useRE && m.lowerASCII != "" && isASCII(text) {
		text, pat, useRE = asciiLower(text), m.lowerASCII, false
	}
	pos := 0
	line := 0
	rc := newRuneCounter(text, 0)
	for n := 0; pos <= len(text); n++ {
		if n%checkEvery == checkEvery-1 && !deadline.IsZero() && time.Now().After(deadline) {
			return out, ErrTimeout
		}
		var s, e int
		if !useRE {
			k := strings.Index(text[pos:], pat)
			if k < 0 {
				break
			}
			s, e = pos+k, pos+k+len(pat)
		} else {
			loc := m.re.FindStringIndex(text[pos:])
			if loc == nil {
				break
			}
			s, e = pos+loc[0], pos+loc[1]
		}
		if e == s { // cannot happen for a non-empty literal; guard the loop
			e++
		}
		pos = e
		for line+1 < l.Count() && l.ByteStart[line+1] <= s {
			line++
		}
		if e > l.ByteEnd[line] {
			continue // reaches into the line terminator
		}
		out = append(out, Match{Line: line, Start: rc.at(s), End: rc.at(e)})
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, nil
}

// runeCounter converts increasing byte offsets of s into code-point
// offsets plus base, scanning s once.
type runeCounter struct {
	s    string
	b, r int
	base int
}

func newRuneCounter(s string, base int) *runeCounter {
	return &runeCounter{s: s, base: base}
}

func (c *runeCounter) at(off int) int {
	if off < c.b { // restart for out-of-order queries
		c.b, c.r = 0, 0
	}
	c.r += utf8.RuneCountInString(c.s[c.b:off])
	c.b = off
	return c.base + c.r
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiLower lower-cases an ASCII string byte by byte, keeping offsets,
// in one allocation (a []byte round trip would copy the text twice).
func asciiLower(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}
