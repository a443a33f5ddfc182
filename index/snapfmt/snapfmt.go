// Package snapfmt owns the files of the start-up snapshots (the access
// catalog's, index/catalog; the full-text index's metadata and catalog,
// index; the vector index's and the knowledge index's state,
// internal/search and internal/knowledge):
//
//   - the framing they share: a magic string, a body of varints and
//     bytes, and a CRC-32C of everything before it; and a Reader that
//     decodes such a body from memory with the first error sticking, so a
//     decoder checks once after a run of reads instead of after each;
//   - the one way a snapshot reaches the disk (WriteFile, or Create and
//     Commit: temporary file, fsync, rename, fsync of the directory);
//   - the Mark of the change-log row a snapshot was taken at, which tells
//     at start-up whether the store is still the one it was taken of.
//
// It sits below the indexes and the engine packages that write snapshots,
// so that none of them imports another for its file format.
//
//	buf := append([]byte(nil), "CXEXAMP1"...)
//	buf = binary.AppendUvarint(buf, 42)
//	buf = snapfmt.Seal(buf, 0)
//	body, err := snapfmt.Open(buf, "CXEXAMP1") // checks magic and checksum
//	r := &snapfmt.Reader{B: body}
//	n := r.Uvarint()
//	if r.Err != nil { ... }
//	err = snapfmt.WriteFile(path, 0o644, func(w io.Writer) error { _, err := w.Write(buf); return err })
//
// Counts are checked against the bytes left (Count), so a lying header
// makes a decoder allocate nothing it could not fill.
package snapfmt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Seal appends the CRC-32C of buf[start:] (the snapshot that starts at
// start, magic included).
func Seal(buf []byte, start int) []byte {
	return binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf[start:], castagnoli))
}

// Reseal replaces the checksum at the end of data with a valid one: fuzz
// targets reach the decoder past it.
func Reseal(data []byte) []byte {
	if len(data) < 4 {
		return data
	}
	out := append([]byte(nil), data...)
	body := out[:len(out)-4]
	binary.LittleEndian.PutUint32(out[len(body):], crc32.Checksum(body, castagnoli))
	return out
}

// Open checks data's magic and checksum and returns the body between
// them.
func Open(data []byte, magic string) ([]byte, error) {
	if len(data) < len(magic)+4 || string(data[:len(magic)]) != magic {
		return nil, errors.New("bad magic")
	}
	body := data[:len(data)-4]
	if got, want := binary.LittleEndian.Uint32(data[len(body):]), crc32.Checksum(body, castagnoli); got != want {
		return nil, fmt.Errorf("checksum %08x, want %08x", got, want)
	}
	return body[len(magic):], nil
}

// Reader decodes a body held in memory; after the first error every read
// returns zero and Err keeps that error.
type Reader struct {
	B   []byte
	Err error
}

// Fail records an error unless one is recorded already.
func (r *Reader) Fail(format string, args ...any) {
	if r.Err == nil {
		r.Err = fmt.Errorf(format, args...)
	}
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 { return next(r, binary.Uvarint) }

// Varint reads a signed (zigzag) varint.
func (r *Reader) Varint() int64 { return next(r, binary.Varint) }

// next reads one varint with dec.
func next[T uint64 | int64](r *Reader, dec func([]byte) (T, int)) T {
	if r.Err != nil {
		return 0
	}
	v, n := dec(r.B)
	if n <= 0 {
		r.Fail("truncated")
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Int32 reads a signed varint that must fit an int32.
func (r *Reader) Int32() int {
	v := r.Varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.Fail("value %d out of range", v)
		return 0
	}
	return int(v)
}

// Count reads a count of items each at least min bytes long, refusing
// one the bytes left cannot hold.
func (r *Reader) Count(min int) int {
	v := r.Uvarint()
	if r.Err == nil && v > uint64(len(r.B)/min) {
		r.Fail("count %d exceeds the data", v)
	}
	if r.Err != nil {
		return 0
	}
	return int(v)
}

// Bytes reads the next n bytes (a slice of the body, not a copy).
func (r *Reader) Bytes(n int) []byte {
	if r.Err == nil && (n < 0 || n > len(r.B)) {
		r.Fail("truncated")
	}
	if r.Err != nil {
		return nil
	}
	p := r.B[:n]
	r.B = r.B[n:]
	return p
}
