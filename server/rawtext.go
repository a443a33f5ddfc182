package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// R-421, A.1, A.5: a client string holding invalid UTF-8 or an unpaired
// UTF-16 surrogate escape must be refused with the reference text, but
// encoding/json silently turns both into U+FFFD while decoding, after
// which nothing can tell them from a real U+FFFD. So when the raw
// arguments hold either, they are decoded here instead, keeping invalid
// bytes as they are and writing a lone surrogate as its three-byte
// (WTF-8) form, which is invalid UTF-8 too. The ordinary validation
// (request.Unstorable, the FTS query check) then sees an invalid string
// at the right parameter and answers with the right message, in the
// reference's order.

// mayHoldInvalidText reports raw JSON that either is not valid UTF-8 or
// holds a \u escape in the surrogate range. It may report true for text
// that is fine (an escaped backslash before "ud800"); the decoder below is
// exact.
func mayHoldInvalidText(raw []byte) bool {
	if !utf8.Valid(raw) {
		return true
	}
	for i := 0; ; {
		j := bytes.Index(raw[i:], []byte(`\u`))
		if j < 0 {
			return false
		}
		i += j + 2
		if i+1 < len(raw) && (raw[i] == 'd' || raw[i] == 'D') {
			switch raw[i+1] {
			case '8', '9', 'a', 'b', 'c', 'd', 'e', 'f', 'A', 'B', 'C', 'D', 'E', 'F':
				return true
			}
		}
	}
}

// textPreservingArguments decodes raw tool arguments (a JSON object) like
// encoding/json with UseNumber, except that strings keep invalid text as
// described above. ok is false when there is nothing to preserve or raw
// is not an object (the ordinary path reports that).
func textPreservingArguments(raw []byte) (map[string]any, bool) {
	if !mayHoldInvalidText(raw) {
		return nil, false
	}
	v, err := decodePreserving(raw)
	m, isObj := v.(map[string]any)
	if err != nil || !isObj {
		return nil, false
	}
	for k, e := range m {
		m[k] = exactNumbers(e)
	}
	return m, true
}

// decodePreserving decodes one JSON document, keeping invalid text.
func decodePreserving(raw []byte) (any, error) {
	d := &rawDecoder{b: raw}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.skipSpace(); d.i != len(d.b) {
		return nil, errSyntax
	}
	return v, nil
}

var errSyntax = errors.New("invalid JSON")

// maxRawDepth matches encoding/json's nesting limit, so a document the
// transport accepted is never refused here for its depth.
const maxRawDepth = 10000

type rawDecoder struct {
	b []byte
	i int
}

func (d *rawDecoder) skipSpace() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *rawDecoder) value(depth int) (any, error) {
	if depth > maxRawDepth {
		return nil, errSyntax
	}
	d.skipSpace()
	if d.i >= len(d.b) {
		return nil, errSyntax
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, errSyntax
}

func (d *rawDecoder) literal(word string) error {
	if !bytes.HasPrefix(d.b[d.i:], []byte(word)) {
		return errSyntax
	}
	d.i += len(word)
	return nil
}

func (d *rawDecoder) object(depth int) (any, error) {
	d.i++ // {
	m := map[string]any{}
	d.skipSpace()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		d.skipSpace()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, errSyntax
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, errSyntax
		}
		d.i++
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k.(string)] = v // the last of duplicate keys wins, as in encoding/json
		if done, err := d.sep('}'); done || err != nil {
			return m, err
		}
	}
}

func (d *rawDecoder) array(depth int) (any, error) {
	d.i++ // [
	l := []any{}
	d.skipSpace()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return l, nil
	}
	for {
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
		if done, err := d.sep(']'); done || err != nil {
			return l, err
		}
	}
}

// sep reads what follows a member of an object or array: ',' (another
// member follows) or close (the end).
func (d *rawDecoder) sep(close byte) (done bool, err error) {
	d.skipSpace()
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case ',':
			d.i++
			return false, nil
		case close:
			d.i++
			return true, nil
		}
	}
	return false, errSyntax
}

func (d *rawDecoder) number() (any, error) {
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c >= '0' && c <= '9' {
			d.i++
			continue
		}
		break
	}
	n := json.Number(d.b[start:d.i])
	// Let encoding/json judge the literal's grammar (leading zeros, a bare
	// "-", "1e"): the preserving path must not accept more than it does.
	var probe json.Number
	if json.Unmarshal(d.b[start:d.i], &probe) != nil {
		return nil, errSyntax
	}
	return n, nil
}

// str decodes a string at d.i (the opening quote), keeping invalid bytes
// and writing lone surrogate escapes in their WTF-8 form.
func (d *rawDecoder) str() (any, error) {
	d.i++ // "
	var out []byte
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), nil
		case c < 0x20:
			return nil, errSyntax
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return nil, errSyntax
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return nil, errSyntax
			}
			if utf16.IsSurrogate(r) {
				if r < 0xDC00 && d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
					save := d.i
					d.i += 2
					if r2, ok := d.hex4(); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
						out = utf8.AppendRune(out, utf16.DecodeRune(r, r2))
						continue
					}
					d.i = save // not a pair: the next escape stands alone
				}
				out = appendWTF8(out, r)
				continue
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, errSyntax
		}
	}
	return nil, errSyntax
}

func (d *rawDecoder) hex4() (rune, bool) {
	if d.i+4 > len(d.b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	d.i += 4
	return rune(n), true
}

// appendWTF8 writes a surrogate code point as the three bytes UTF-8 would
// use for it, which utf8.ValidString refuses.
func appendWTF8(b []byte, r rune) []byte {
	return append(b, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}
