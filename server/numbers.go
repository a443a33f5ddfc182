package server

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// exactArguments re-reads the raw JSON arguments of a call when they may
// hold an integer literal outside the int64 range, which decoding into
// float64 would silently turn into an ordinary float. Such literals stay
// json.Number so the engine can refuse them; every other number becomes
// float64 as usual. ok is false when there is nothing to preserve.
func exactArguments(raw json.RawMessage) (map[string]any, bool) {
	if !hasLongDigitRun(raw) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	for k, v := range m {
		m[k] = exactNumbers(v)
	}
	return m, true
}

// hasLongDigitRun reports a run of 19 or more digits outside strings in
// the JSON b, the shortest text of an integer outside int64. Strings are
// skipped (closingQuote): a long number in a text (an order number, a
// timestamp in nanoseconds) sent a large call down the slow path, and
// looking at every byte of a 50 MB text cost 0.05 s.
func hasLongDigitRun(b []byte) bool {
	run := 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			if i = closingQuote(b, i); i < 0 {
				return true // malformed: let the exact path see it
			}
			run = 0
		case c >= '0' && c <= '9':
			if run++; run >= 19 {
				return true
			}
		default:
			run = 0
		}
	}
	return false
}

func exactNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		s := x.String()
		if !strings.ContainsAny(s, ".eE") {
			if _, err := strconv.ParseInt(s, 10, 64); err != nil {
				return x // an integer outside int64
			}
		}
		f, err := x.Float64()
		if err != nil {
			return x
		}
		return f
	case []any:
		for i, e := range x {
			x[i] = exactNumbers(e)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = exactNumbers(e)
		}
	}
	return v
}
