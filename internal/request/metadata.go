package request

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/pyfmt"
)

// Shape limits of a metadata object, the same on every backend. SQLite's
// json_valid refuses nesting deeper than 1000 levels, which used to reach
// the caller as the driver's CHECK-constraint text; 64 levels is far below
// that and above any real document. The size bounds one entry's metadata
// as compact JSON.
const (
	MaxMetadataDepth = 64
	MaxMetadataBytes = 1 << 20
)

// MarshalMetadata checks the shape of a metadata object (or patch) named
// field and returns its JSON. It runs after CheckMetadataValues, so md
// holds nothing json.Marshal refuses. Levels count objects and arrays:
// {"a":{"b":1}} has 2. The walk stops one level past the limit, so a
// value built in Go that contains itself is refused, not followed.
func MarshalMetadata(field string, md map[string]any) (json.RawMessage, error) {
	if tooDeep(md, 1) {
		return nil, cerrors.Invalidf("%s is nested too deeply: at most %d levels of objects and arrays are allowed", field, MaxMetadataDepth)
	}
	raw, err := json.Marshal(md)
	if err != nil {
		return nil, cerrors.Invalidf("%s must be a JSON object", field)
	}
	if err := CheckMetadataSize(field, raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// CheckMetadataSize refuses metadata larger than MaxMetadataBytes as JSON.
func CheckMetadataSize(field string, raw []byte) error {
	if len(raw) > MaxMetadataBytes {
		return cerrors.Invalidf("%s is too large: %d bytes as JSON, maximum is %d bytes", field, len(raw), MaxMetadataBytes)
	}
	return nil
}

// tooDeep reports whether v, found at level depth, nests objects and
// arrays deeper than MaxMetadataDepth.
func tooDeep(v any, depth int) bool {
	var kids []any
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			kids = append(kids, e)
		}
	case []any:
		kids = x
	default:
		return false
	}
	if depth > MaxMetadataDepth {
		return true
	}
	for _, e := range kids {
		switch e.(type) {
		case map[string]any, []any:
			if tooDeep(e, depth+1) {
				return true
			}
		}
	}
	return false
}

// CheckMetadataValues rejects non-finite numbers and unstorable strings at
// any depth of a metadata object.
func CheckMetadataValues(field string, v any) error {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if msg := Unstorable("A metadata key", k); msg != "" {
				return cerrors.Invalidf("%s: %s", field, msg)
			}
			if err := CheckMetadataValues(field, val); err != nil {
				return err
			}
		}
	case []any:
		for _, val := range x {
			if err := CheckMetadataValues(field, val); err != nil {
				return err
			}
		}
	case string:
		return CheckStorable(field, x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return cerrors.Invalidf("%s: A numeric value is not finite (NaN or Infinity): JSON cannot represent it. Remove it before storing.", field)
		}
	case float32:
		return CheckMetadataValues(field, float64(x))
	}
	return nil
}

// CheckIndexedFields applies the caps and type casts of the indexed
// metadata fields (name -> type) to the top-level keys of md.
func CheckIndexedFields(indexed map[string]string, md map[string]any) error {
	keys := make([]string, 0, len(md))
	for k := range md {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		typ, ok := indexed[k]
		if !ok {
			continue
		}
		if err := CheckIndexedValue(k, typ, md[k]); err != nil {
			return err
		}
	}
	return nil
}

// CheckIndexedValue checks one value of the indexed field key of type typ
// as PostgreSQL's cast of its text would.
func CheckIndexedValue(key, typ string, v any) error {
	if v == nil {
		return nil
	}
	switch typ {
	case "array", "object":
		return nil
	case "string":
		s, ok := v.(string)
		if !ok {
			s = pyfmt.JSON(v)
		}
		if n := RuneLen(s); n > MaxIndexedValLen {
			return cerrors.Invalidf("metadata field '%s' is indexed and its value is too long: %d characters, maximum is %d characters", key, n, MaxIndexedValLen)
		}
		return nil
	}
	switch v.(type) {
	case []any:
		return cerrors.Invalidf("metadata field '%s' is indexed as %s and a list value cannot be stored in it", key, typ)
	case map[string]any:
		return cerrors.Invalidf("metadata field '%s' is indexed as %s and a dict value cannot be stored in it", key, typ)
	}
	text := ScalarText(v)
	t := strings.Trim(text, " \t\n\r\v\f")
	var valid bool
	switch typ {
	case "integer":
		n, ok := ParsePGInt(t)
		if ok && (n < math.MinInt32 || n > math.MaxInt32) {
			return cerrors.Invalidf("metadata field '%s' is indexed as integer and its value is out of range: %s (the supported range is -2147483648 to 2147483647)", key, text)
		}
		valid = ok
	case "boolean":
		valid = pgBools[strings.ToLower(t)]
	case "float":
		valid = pgFloat.MatchString(t) || pgFloatWords[strings.ToLower(t)]
		if !valid {
			_, valid = ParsePGInt(t)
		}
	default:
		return nil
	}
	if !valid {
		shown := text
		if RuneLen(shown) > 60 {
			shown = string([]rune(shown)[:60]) + "..."
		}
		return cerrors.Invalidf("metadata field '%s' is indexed as %s and its value is not a valid %s: '%s'", key, typ, typ, shown)
	}
	return nil
}

// ScalarText renders a JSON scalar as PostgreSQL would see its text.
func ScalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return pyfmt.Number(x)
	default:
		return fmt.Sprint(x)
	}
}

var (
	pgIntRe = regexp.MustCompile(`^[+-]?(0[xX][0-9a-fA-F](_?[0-9a-fA-F])*|0[oO][0-7](_?[0-7])*|0[bB][01](_?[01])*|[0-9](_?[0-9])*)$`)
	pgFloat = regexp.MustCompile(`^[+-]?([0-9](_?[0-9])*(\.([0-9](_?[0-9])*)?)?|\.[0-9](_?[0-9])*)([eE][+-]?[0-9]+)?$`)
	pgBools = map[string]bool{
		"t": true, "tr": true, "tru": true, "true": true, "y": true, "ye": true, "yes": true, "on": true, "1": true,
		"f": true, "fa": true, "fal": true, "fals": true, "false": true, "n": true, "no": true, "of": true, "off": true, "0": true,
	}
	pgFloatWords = map[string]bool{
		"nan": true, "inf": true, "+inf": true, "-inf": true, "infinity": true, "+infinity": true, "-infinity": true,
	}
)

// ParsePGInt parses PostgreSQL's integer input grammar (decimal, 0x, 0o,
// 0b, single underscores between digits).
func ParsePGInt(s string) (int64, bool) {
	if !pgIntRe.MatchString(s) {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64)
	if err != nil {
		// Too large for int64: still an integer, out of any int32 range.
		if strings.HasPrefix(s, "-") {
			return math.MinInt64, true
		}
		return math.MaxInt64, true
	}
	if strings.HasPrefix(strings.TrimLeft(s, "+-"), "0") && len(strings.TrimLeft(s, "+-")) > 1 {
		// strconv base 0 reads a leading 0 as octal; PostgreSQL reads decimal.
		if c := strings.TrimLeft(s, "+-")[1]; c >= '0' && c <= '9' || c == '_' {
			n, err = strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
			if err != nil {
				return math.MaxInt64, true
			}
		}
	}
	return n, true
}
