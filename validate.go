package contextd

import (
	"encoding/base64"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/contextd/contextd/persist"
)

// Limits of the write path.
const (
	maxThreadIDLen   = 256
	maxTags          = 100
	maxTagLen        = 128
	maxImages        = 10
	maxIndexedValLen = 512
	maxBatch         = 100
	maxFilterItems   = 100
)

// checkTagCaps applies the caps to the raw tags, before normalization.
func checkTagCaps(tags []string) error {
	if len(tags) > maxTags {
		return invalidf("Too many tags: %d provided, maximum is %d per entry", len(tags), maxTags)
	}
	for i, t := range tags {
		if n := runeLen(t); n > maxTagLen {
			return invalidf("Tag %d is too long: %d characters, maximum is %d characters per tag", i, n, maxTagLen)
		}
	}
	return nil
}

// normalizeTags strips and lowercases, drops blanks and duplicates,
// keeping the first-seen order. A nil input stays nil (absent).
func normalizeTags(tags []string) []string {
	if tags == nil {
		return nil
	}
	out := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		t = strings.ToLower(pyStrip(t))
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

var dataURLPrefix = regexp.MustCompile(`(?i)^data:[^,]*;base64,`)

// decodeImages validates images in the documented order and returns them
// decoded. batch selects the short base64 message of the batch tools.
func (e *Engine) decodeImages(imgs []ImageInput, batch bool) ([]persist.Image, error) {
	if len(imgs) > maxImages {
		return nil, invalidf("Too many images: %d provided, maximum is %d per entry", len(imgs), maxImages)
	}
	out := make([]persist.Image, 0, len(imgs))
	var total int64
	perImage := int64(e.cfg.MaxImageSizeMB) << 20
	totalMax := int64(e.cfg.MaxTotalSizeMB) << 20
	for i, im := range imgs {
		if pyStrip(im.Data) == "" {
			return nil, invalidf(`Image %d has empty "data" field`, i)
		}
		if msg := unstorable("A string value", im.MimeType); msg != "" {
			return nil, invalidf("Image %d mime_type: %s", i, msg)
		}
		if im.Metadata != nil {
			if msg := unstorable("A string value", *im.Metadata); msg != "" {
				return nil, invalidf("Image %d metadata: %s", i, msg)
			}
		}
		data, err := decodeBase64(im.Data)
		if err != nil {
			if batch {
				return nil, invalidf("Image %d has invalid base64 encoding", i)
			}
			return nil, invalidf("Image %d has invalid base64 encoding: Invalid base64 data (%v)", i, err)
		}
		if len(data) == 0 {
			return nil, invalidf(`Image %d "data" decodes to zero bytes (not valid base64 image content)`, i)
		}
		if int64(len(data)) > perImage {
			return nil, invalidf("Image %d exceeds %dMB limit", i, e.cfg.MaxImageSizeMB)
		}
		total += int64(len(data))
		if total > totalMax {
			return nil, invalidf("Total image size exceeds %dMB limit", e.cfg.MaxTotalSizeMB)
		}
		mime := im.MimeType
		if mime == "" {
			mime = "image/png"
		}
		out = append(out, persist.Image{Data: data, MimeType: mime, Metadata: im.Metadata})
	}
	return out, nil
}

// decodeBase64 accepts a data-URL prefix, white space and the URL-safe
// alphabet, pads, then decodes strictly.
func decodeBase64(s string) ([]byte, error) {
	s = dataURLPrefix.ReplaceAllString(s, "")
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			return -1
		case '-':
			return '+'
		case '_':
			return '/'
		}
		return r
	}, s)
	if n := len(s) % 4; n != 0 {
		s += strings.Repeat("=", 4-n)
	}
	return base64.StdEncoding.Strict().DecodeString(s)
}

// checkMetadataValues rejects non-finite numbers and unstorable strings at
// any depth of a metadata object.
func checkMetadataValues(field string, v any) error {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if msg := unstorable("A metadata key", k); msg != "" {
				return invalidf("%s: %s", field, msg)
			}
			if err := checkMetadataValues(field, val); err != nil {
				return err
			}
		}
	case []any:
		for _, val := range x {
			if err := checkMetadataValues(field, val); err != nil {
				return err
			}
		}
	case string:
		return checkStorable(field, x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return invalidf("%s: A numeric value is not finite (NaN or Infinity): JSON cannot represent it. Remove it before storing.", field)
		}
	case float32:
		return checkMetadataValues(field, float64(x))
	}
	return nil
}

// checkIndexedFields applies the caps and type casts of the indexed
// metadata fields to the top-level keys of md.
func (e *Engine) checkIndexedFields(md map[string]any) error {
	keys := make([]string, 0, len(md))
	for k := range md {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		typ, ok := e.indexed[k]
		if !ok {
			continue
		}
		if err := checkIndexedValue(k, typ, md[k]); err != nil {
			return err
		}
	}
	return nil
}

func checkIndexedValue(key, typ string, v any) error {
	if v == nil {
		return nil
	}
	switch typ {
	case "array", "object":
		return nil
	case "string":
		s, ok := v.(string)
		if !ok {
			s = pyJSON(v)
		}
		if n := runeLen(s); n > maxIndexedValLen {
			return invalidf("metadata field '%s' is indexed and its value is too long: %d characters, maximum is %d characters", key, n, maxIndexedValLen)
		}
		return nil
	}
	switch v.(type) {
	case []any:
		return invalidf("metadata field '%s' is indexed as %s and a list value cannot be stored in it", key, typ)
	case map[string]any:
		return invalidf("metadata field '%s' is indexed as %s and a dict value cannot be stored in it", key, typ)
	}
	text := scalarText(v)
	t := strings.Trim(text, " \t\n\r\v\f")
	var valid bool
	switch typ {
	case "integer":
		n, ok := parsePGInt(t)
		if ok && (n < math.MinInt32 || n > math.MaxInt32) {
			return invalidf("metadata field '%s' is indexed as integer and its value is out of range: %s (the supported range is -2147483648 to 2147483647)", key, text)
		}
		valid = ok
	case "boolean":
		valid = pgBools[strings.ToLower(t)]
	case "float":
		valid = pgFloat.MatchString(t) || pgFloatWords[strings.ToLower(t)]
		if !valid {
			_, valid = parsePGInt(t)
		}
	default:
		return nil
	}
	if !valid {
		shown := text
		if runeLen(shown) > 60 {
			shown = string([]rune(shown)[:60]) + "..."
		}
		return invalidf("metadata field '%s' is indexed as %s and its value is not a valid %s: '%s'", key, typ, typ, shown)
	}
	return nil
}

// scalarText renders a JSON scalar as PostgreSQL would see its text.
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
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

// parsePGInt parses PostgreSQL's integer input grammar (decimal, 0x, 0o,
// 0b, single underscores between digits).
func parsePGInt(s string) (int64, bool) {
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

// pyJSON renders v as Python's json.dumps does by default (", " and ": "
// separators), which is the text an index stores for a non-string value.
func pyJSON(v any) string {
	var b strings.Builder
	writePyJSON(&b, v)
	return b.String()
}

func writePyJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(scalarText(x))
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			b.WriteString(strconv.FormatInt(int64(x), 10))
		} else {
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case string:
		b.WriteString(strconv.Quote(x))
	case []any:
		b.WriteByte('[')
		for i, el := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyJSON(b, el)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(k))
			b.WriteString(": ")
			writePyJSON(b, x[k])
		}
		b.WriteByte('}')
	default:
		fmt.Fprint(b, x)
	}
}
