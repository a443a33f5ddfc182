// Package sqlval owns the dialect-independent checks and encodings of
// values the SQL backends (persist/sqlite, persist/postgres) store and
// bind: the kinds of metadata condition values, the ASCII case fold of
// R-310, the little-endian float32 form of chunk vectors, and the checks
// of chunk forms and compression records a store makes before it writes.
// Keeping one copy keeps both stores accepting and refusing the same
// input.
//
//	kind, v, err := sqlval.KindOf(json.Number("3"))   // KindNumber, int64(3), nil
//	blob := sqlval.EncodeVector([]float32{1, 2})       // 8 bytes
//	err = sqlval.ValidateEmbeddings(e)                 // before any row is written
package sqlval

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/contextd/contextd/persist"
)

// Kinds of metadata condition values.
const (
	KindNone = iota
	KindString
	KindNumber
	KindBool
)

// KindOf classifies a condition value and returns it in the form to bind
// (string, int64, float64 or bool).
func KindOf(v any) (int, any, error) {
	switch x := v.(type) {
	case nil:
		return KindNone, nil, nil
	case string:
		return KindString, x, nil
	case bool:
		return KindBool, x, nil
	case int64:
		return KindNumber, x, nil
	case int:
		return KindNumber, int64(x), nil
	case int32:
		return KindNumber, int64(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return KindNone, nil, errors.New("non-finite number")
		}
		return KindNumber, x, nil
	case float32:
		return KindOf(float64(x))
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return KindNumber, i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return KindNone, nil, fmt.Errorf("bad number %q", string(x))
		}
		return KindOf(f)
	}
	return KindNone, nil, fmt.Errorf("unsupported value type %T", v)
}

// ASCIILower folds A-Z only: the ASCII case fold of R-310 (SQLite's
// lower()).
func ASCIILower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// Opposite returns the other source of a conversation.
func Opposite(source string) string {
	if source == "user" {
		return "agent"
	}
	return "user"
}

// EncodeVector returns v as little-endian float32 bytes.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector reads little-endian float32 bytes.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("vector blob of %d bytes is not a float32 array", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// CheckVector reports a vector that is empty or holds a value that is not
// a finite number.
func CheckVector(v []float32) error {
	if len(v) == 0 {
		return errors.New("empty vector")
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("value %d is not a finite number", i)
		}
	}
	return nil
}

// CheckForms reports a chunk with neither form, or a float32 vector that is
// not dim long and finite. Codes are opaque here: the engine that wrote
// them checks them against compression_metadata when it reads them.
func CheckForms(v []float32, code []byte, dim int) error {
	if len(v) == 0 && len(code) == 0 {
		return errors.New("neither a vector nor a code")
	}
	if len(v) == 0 {
		return nil
	}
	if len(v) != dim {
		return fmt.Errorf("vector has %d dimensions, want %d", len(v), dim)
	}
	return CheckVector(v)
}

// ValidateEmbeddings checks e before anything is written: a positive Dim,
// every chunk with a vector or a code, every vector Dim long and finite,
// spans with 0 <= Start <= End.
func ValidateEmbeddings(e persist.Embeddings) error {
	if e.Dim <= 0 {
		return fmt.Errorf("dimension %d is not positive", e.Dim)
	}
	for i, c := range e.Chunks {
		if err := CheckForms(c.Vector, c.Code, e.Dim); err != nil {
			return fmt.Errorf("chunk %d: %w", i, err)
		}
		if c.Start < 0 || c.End < c.Start {
			return fmt.Errorf("chunk %d: bad span [%d, %d)", i, c.Start, c.End)
		}
	}
	return nil
}

// CheckCompression refuses a record the tables' constraints would: the
// message names the field instead of the driver's constraint text.
func CheckCompression(c *persist.Compression) error {
	switch {
	case c.Provider == "":
		return errors.New("empty provider")
	case c.Bits < 1 || c.Bits > 4:
		return fmt.Errorf("bits %d is not between 1 and 4", c.Bits)
	case c.Variant != "mse" && c.Variant != "ip":
		return fmt.Errorf("variant %q is not mse or ip", c.Variant)
	case c.Dim <= 0:
		return fmt.Errorf("dimension %d is not positive", c.Dim)
	case c.Fingerprint == "":
		return errors.New("empty fingerprint")
	}
	return nil
}
