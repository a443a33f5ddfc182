// Package safetensors owns the reader of the safetensors format, in which
// Hugging Face models ship their weights: an 8-byte little-endian header
// length N, N bytes of JSON naming every tensor's dtype, shape and byte
// range (data_offsets, relative to the end of the header) plus an
// optional "__metadata__" object of strings, then the tensors' bytes.
//
// Open validates the whole header before any tensor is read, with the
// rules of the reference implementation (the Rust safetensors crate):
// the header fits in the file and in 100 MB, is one JSON object without
// duplicate names, every dtype is known, every shape's size times its
// dtype's width equals its byte range, and the ranges, sorted, tile the
// data section from its first byte to the file's last with neither gap
// nor overlap. A file that breaks a rule is refused with an error
// wrapping cerrors.ErrMalformed that names the file and the rule; a
// dtype this reader cannot convert is refused by Tensor with
// cerrors.ErrUnsupported. Malformed input never panics (FuzzSafetensors).
//
// Tensor reads one tensor on demand (ReadAt, so a 400 MB model is not
// held twice) and converts F32, F16, BF16, F64 and the integer dtypes to
// float32.
//
//	f, err := safetensors.Open("model.safetensors")
//	defer f.Close()
//	t, err := f.Tensor("embeddings.word_embeddings.weight")
//	// t.Shape = [30522 384], len(t.Data) = 30522*384
package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/contextd/contextd/cerrors"
)

// MaxHeader is the largest header accepted, as in the reference
// implementation (100 MB): a corrupt length must not make the reader
// allocate gigabytes. Real headers are a few kB to a few hundred kB
// (one JSON line per tensor).
const MaxHeader = 100_000_000

// dtypeWidth is the byte width of every dtype the format defines.
var dtypeWidth = map[string]int{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1,
	"I16": 2, "U16": 2, "F16": 2, "BF16": 2,
	"I32": 4, "U32": 4, "F32": 4,
	"I64": 8, "U64": 8, "F64": 8,
}

// Info describes one tensor as the header declares it.
type Info struct {
	DType string // "F32", "F16", "BF16", ...
	Shape []int
	// Begin and End are the tensor's byte range, relative to the start
	// of the data section.
	Begin, End int64
}

// Elements is the number of values (the product of Shape; 1 for a
// scalar).
func (i Info) Elements() int {
	n := 1
	for _, d := range i.Shape {
		n *= d
	}
	return n
}

// Tensor is one tensor converted to float32, row-major.
type Tensor struct {
	Shape []int
	Data  []float32
}

// File is an opened safetensors file. Its methods are safe for
// concurrent use (they only ReadAt).
type File struct {
	name     string // for errors
	r        io.ReaderAt
	closer   io.Closer
	dataOff  int64 // where the data section starts: 8 + header length
	tensors  map[string]Info
	names    []string // sorted
	metadata map[string]string
}

// Open opens and validates the file at path. Close releases it.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	f, err := parse(path, fh, st.Size())
	if err != nil {
		fh.Close()
		return nil, err
	}
	f.closer = fh
	return f, nil
}

// Read validates data, a whole safetensors file held in memory (tests,
// fuzzing, an embedded model); name is used in errors.
func Read(name string, data []byte) (*File, error) {
	return parse(name, bytes.NewReader(data), int64(len(data)))
}

// Close releases the file opened by Open (a no-op for Read).
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	return f.closer.Close()
}

// Names lists the tensors, sorted.
func (f *File) Names() []string { return slices.Clone(f.names) }

// Metadata is the header's "__metadata__" object (nil when absent).
func (f *File) Metadata() map[string]string { return f.metadata }

// Info describes the tensor called name without reading it.
func (f *File) Info(name string) (Info, bool) {
	i, ok := f.tensors[name]
	if ok {
		i.Shape = slices.Clone(i.Shape)
	}
	return i, ok
}

// Tensor reads the tensor called name and converts it to float32. It
// wraps cerrors.ErrNotFound for a name the file lacks and
// cerrors.ErrUnsupported for a dtype without a float conversion (BOOL,
// the 8-bit floats).
func (f *File) Tensor(name string) (Tensor, error) {
	info, ok := f.tensors[name]
	if !ok {
		return Tensor{}, fmt.Errorf("safetensors %s: no tensor %q: %w", f.name, name, cerrors.ErrNotFound)
	}
	conv, ok := converters[info.DType]
	if !ok {
		return Tensor{}, fmt.Errorf("safetensors %s: tensor %q has dtype %s, which cannot be read as float32: %w",
			f.name, name, info.DType, cerrors.ErrUnsupported)
	}
	raw := make([]byte, info.End-info.Begin)
	if _, err := f.r.ReadAt(raw, f.dataOff+info.Begin); err != nil && len(raw) > 0 {
		return Tensor{}, fmt.Errorf("safetensors %s: reading tensor %q: %w", f.name, name, err)
	}
	out := make([]float32, info.Elements())
	conv(out, raw)
	return Tensor{Shape: slices.Clone(info.Shape), Data: out}, nil
}

// malformed is the error of a file that breaks a rule of the format.
func malformed(name, format string, args ...any) error {
	return fmt.Errorf("safetensors %s: %s: %w", name, fmt.Sprintf(format, args...), cerrors.ErrMalformed)
}

// parse reads and validates the header of a file of size bytes.
func parse(name string, r io.ReaderAt, size int64) (*File, error) {
	if size < 8 {
		return nil, malformed(name, "file is %d bytes, shorter than the 8-byte header length", size)
	}
	var lenBuf [8]byte
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return nil, fmt.Errorf("safetensors %s: reading header length: %w", name, err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > MaxHeader {
		return nil, malformed(name, "header length %d exceeds the limit of %d bytes", n, MaxHeader)
	}
	if n > uint64(size-8) {
		return nil, malformed(name, "header length %d exceeds the %d bytes after the length", n, size-8)
	}
	if n < 2 {
		return nil, malformed(name, "header length %d is too short for a JSON object", n)
	}
	hdr := make([]byte, n)
	if _, err := r.ReadAt(hdr, 8); err != nil {
		return nil, fmt.Errorf("safetensors %s: reading header: %w", name, err)
	}
	f := &File{name: name, r: r, dataOff: 8 + int64(n), tensors: map[string]Info{}}
	if err := f.decodeHeader(hdr); err != nil {
		return nil, err
	}
	if err := f.validate(size - f.dataOff); err != nil {
		return nil, err
	}
	return f, nil
}

// rawInfo is one tensor entry as JSON.
type rawInfo struct {
	DType       string            `json:"dtype"`
	Shape       []json.RawMessage `json:"shape"`
	DataOffsets []json.RawMessage `json:"data_offsets"`
}

// decodeHeader parses the JSON header entry by entry (a map would hide a
// duplicated name, which the reference refuses).
func (f *File) decodeHeader(hdr []byte) error {
	// The reference pads the header with trailing spaces for alignment;
	// it must start with '{'.
	if hdr[0] != '{' {
		return malformed(f.name, "header does not start with '{'")
	}
	dec := json.NewDecoder(bytes.NewReader(hdr))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return malformed(f.name, "header is not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return malformed(f.name, "header is not valid JSON: %v", jsonErr(err))
		}
		key, ok := tok.(string)
		if !ok {
			return malformed(f.name, "header is not valid JSON")
		}
		if seen[key] {
			return malformed(f.name, "header names %q twice", key)
		}
		seen[key] = true
		if key == "__metadata__" {
			var md map[string]string
			if err := dec.Decode(&md); err != nil {
				return malformed(f.name, "__metadata__ is not an object of strings: %v", jsonErr(err))
			}
			f.metadata = md
			continue
		}
		var ri rawInfo
		if err := dec.Decode(&ri); err != nil {
			return malformed(f.name, "tensor %q: entry is not {dtype, shape, data_offsets}: %v", key, jsonErr(err))
		}
		info, err := f.checkEntry(key, ri)
		if err != nil {
			return err
		}
		f.tensors[key] = info
		f.names = append(f.names, key)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return malformed(f.name, "header is not a JSON object")
	}
	// Only the reference's padding may follow the object.
	rest, _ := io.ReadAll(dec.Buffered())
	if len(strings.TrimRight(string(rest), " \t\r\n\x00")) != 0 {
		return malformed(f.name, "header has bytes after its JSON object")
	}
	slices.Sort(f.names)
	return nil
}

// jsonErr shortens a decoding error to its message.
func jsonErr(err error) string {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return "unexpected end of header"
	}
	return err.Error()
}

// checkEntry validates one tensor's own fields: a known dtype,
// non-negative dimensions, ordered offsets, and a byte range as long as
// the shape times the dtype's width.
func (f *File) checkEntry(name string, ri rawInfo) (Info, error) {
	width, ok := dtypeWidth[ri.DType]
	if !ok {
		return Info{}, malformed(f.name, "tensor %q: unknown dtype %q", name, ri.DType)
	}
	info := Info{DType: ri.DType, Shape: make([]int, 0, len(ri.Shape))}
	// The element count is bounded by the file size (checked below), so
	// an overflowing product is refused before it can wrap.
	count := uint64(1)
	for _, d := range ri.Shape {
		v, ok := parseUint(d)
		if !ok || v > math.MaxInt32 {
			return Info{}, malformed(f.name, "tensor %q: shape %s is not a list of dimensions", name, shapeText(ri.Shape))
		}
		info.Shape = append(info.Shape, int(v))
		if v != 0 && count > math.MaxInt64/8/v {
			return Info{}, malformed(f.name, "tensor %q: shape %s is too large", name, shapeText(ri.Shape))
		}
		count *= v
	}
	if len(ri.DataOffsets) != 2 {
		return Info{}, malformed(f.name, "tensor %q: data_offsets must be [begin, end]", name)
	}
	b, ok1 := parseUint(ri.DataOffsets[0])
	e, ok2 := parseUint(ri.DataOffsets[1])
	if !ok1 || !ok2 || b > math.MaxInt64 || e > math.MaxInt64 || e < b {
		return Info{}, malformed(f.name, "tensor %q: data_offsets [%s, %s] are not an ordered byte range",
			name, ri.DataOffsets[0], ri.DataOffsets[1])
	}
	info.Begin, info.End = int64(b), int64(e)
	if want := count * uint64(width); want != e-b {
		return Info{}, malformed(f.name, "tensor %q: shape %v of %s needs %d bytes, but data_offsets [%d, %d] hold %d",
			name, info.Shape, info.DType, want, b, e, e-b)
	}
	return info, nil
}

// parseUint reads a JSON number that is a non-negative integer.
func parseUint(m json.RawMessage) (uint64, bool) {
	var n json.Number
	if err := json.Unmarshal(m, &n); err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(string(n), 10, 64)
	return v, err == nil
}

func shapeText(s []json.RawMessage) string {
	parts := make([]string, len(s))
	for i, m := range s {
		parts[i] = string(m)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// validate checks that the tensors' ranges, sorted, tile the data
// section of dataLen bytes exactly (the reference's rule: no gap, no
// overlap, nothing past the end, nothing left over).
func (f *File) validate(dataLen int64) error {
	order := slices.Clone(f.names)
	slices.SortFunc(order, func(a, b string) int {
		ia, ib := f.tensors[a], f.tensors[b]
		if ia.Begin != ib.Begin {
			return int(min(max(ia.Begin-ib.Begin, -1), 1))
		}
		return int(min(max(ia.End-ib.End, -1), 1))
	})
	var at int64
	for _, n := range order {
		i := f.tensors[n]
		switch {
		case i.Begin < at:
			return malformed(f.name, "tensor %q: data_offsets [%d, %d] overlap the previous tensor, which ends at %d", n, i.Begin, i.End, at)
		case i.Begin > at:
			return malformed(f.name, "tensor %q: data_offsets [%d, %d] leave bytes %d to %d unused", n, i.Begin, i.End, at, i.Begin)
		case i.End > dataLen:
			return malformed(f.name, "tensor %q: data_offsets [%d, %d] run past the %d bytes of data", n, i.Begin, i.End, dataLen)
		}
		at = i.End
	}
	if at != dataLen {
		return malformed(f.name, "the tensors cover %d of the %d bytes of data", at, dataLen)
	}
	return nil
}
