package quant

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/contextd/contextd/cerrors"
)

// The TQP1 payload (C.14 item 5), little-endian:
//
//	MSE: "TQP1" u8 variant=0, u8 bits, u16 dim, u32 rows, u32 seed,
//	     u32 len + float32[rows] norms, u32 len + packed indices
//	IP:  "TQP1" u8 variant=1, u8 bits, u16 dim, u32 rows, u32 seed,
//	     u8 mse_bits, 3 zero bytes, u32 len + norms, u32 len + residual
//	     norms, u32 len + QJL bits (rows·⌈d/8⌉), u32 len + packed indices
//
// Every len is a byte count; indices are rows·⌈d·b'/8⌉ bytes (each row
// padded to a byte). Payloads of the same (bits, variant, dim, seed)
// concatenate row-wise by concatenating their columns.

// PayloadVersion is the magic that opens every payload.
const PayloadVersion = "TQP1"

// Header is the fixed part of a payload.
type Header struct {
	Variant Variant
	Bits    int
	MSEBits int
	Dim     int
	Rows    int
	Seed    uint32
}

// Payload is a decoded TQP1 payload, columns as stored.
type Payload struct {
	Header
	Norms    []float32
	Residual []float32 // IP only
	QJL      []byte    // IP only: rows × ⌈d/8⌉
	Indices  []byte    // rows × ⌈d·MSEBits/8⌉
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: compressed vector payload: %s", cerrors.ErrInvalid, fmt.Sprintf(format, args...))
}

// DecodePayload parses and validates p: magic, variant, bit widths,
// dimension, every column length against the row count, finite
// non-negative norms, no trailing bytes. It never panics and allocates no
// more than len(p) bytes' worth for any input.
func DecodePayload(p []byte) (Payload, error) {
	var out Payload
	if len(p) < 16 {
		return out, corrupt("%d bytes is shorter than the 16-byte header", len(p))
	}
	if string(p[:4]) != PayloadVersion {
		return out, corrupt("magic %q, want %q", p[:4], PayloadVersion)
	}
	h := Header{Variant: Variant(p[4]), Bits: int(p[5]), Dim: int(binary.LittleEndian.Uint16(p[6:])),
		Rows: int(binary.LittleEndian.Uint32(p[8:])), Seed: binary.LittleEndian.Uint32(p[12:])}
	rest := p[16:]
	switch h.Variant {
	case MSE:
		h.MSEBits = h.Bits
		if h.Bits < 1 || h.Bits > 4 {
			return out, corrupt("mse bits %d outside 1..4", h.Bits)
		}
	case IP:
		if len(rest) < 4 {
			return out, corrupt("ip header truncated")
		}
		h.MSEBits = int(rest[0])
		if h.Bits < 2 || h.Bits > 4 || h.MSEBits != h.Bits-1 {
			return out, corrupt("ip bits %d with mse bits %d", h.Bits, h.MSEBits)
		}
		if rest[1]|rest[2]|rest[3] != 0 {
			return out, corrupt("non-zero header padding")
		}
		rest = rest[4:]
	default:
		return out, corrupt("unknown variant %d", h.Variant)
	}
	if h.Dim < 1 {
		return out, corrupt("dimension 0")
	}
	out.Header = h
	col := func(name string, want int) ([]byte, error) {
		if len(rest) < 4 {
			return nil, corrupt("%s length missing", name)
		}
		n := binary.LittleEndian.Uint32(rest)
		rest = rest[4:]
		if uint64(n) != uint64(want) {
			return nil, corrupt("%s length %d, want %d for %d rows", name, n, want, h.Rows)
		}
		if len(rest) < want {
			return nil, corrupt("%s truncated: %d of %d bytes", name, len(rest), want)
		}
		b := rest[:want:want]
		rest = rest[want:]
		return b, nil
	}
	// The smallest column bounds the row count before any multiplication
	// can overflow or allocate: every row takes at least 4 bytes.
	if uint64(h.Rows)*4 > uint64(len(p)) {
		return out, corrupt("%d rows cannot fit in %d bytes", h.Rows, len(p))
	}
	floats := func(name string) ([]float32, error) {
		b, err := col(name, 4*h.Rows)
		if err != nil {
			return nil, err
		}
		f := make([]float32, h.Rows)
		for i := range f {
			f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			if !(f[i] >= 0) || math.IsInf(float64(f[i]), 0) {
				return nil, corrupt("%s row %d is %v", name, i, f[i])
			}
		}
		return f, nil
	}
	var err error
	if out.Norms, err = floats("norms"); err != nil {
		return Payload{}, err
	}
	if h.Variant == IP {
		if out.Residual, err = floats("residual norms"); err != nil {
			return Payload{}, err
		}
		if out.QJL, err = col("qjl bits", h.Rows*packedLen(h.Dim, 1)); err != nil {
			return Payload{}, err
		}
	}
	if out.Indices, err = col("indices", h.Rows*packedLen(h.Dim, h.MSEBits)); err != nil {
		return Payload{}, err
	}
	if len(rest) != 0 {
		return Payload{}, corrupt("%d trailing bytes", len(rest))
	}
	return out, nil
}

// MarshalPayload encodes code records (len a multiple of CodeSize) as one
// TQP1 payload.
func (q *Quantizer) MarshalPayload(codes []byte) ([]byte, error) {
	if len(codes)%q.rowSize != 0 {
		return nil, fmt.Errorf("%w: %d code bytes is not a multiple of the %d-byte record", cerrors.ErrInvalid, len(codes), q.rowSize)
	}
	rows := len(codes) / q.rowSize
	c := q.cfg
	out := make([]byte, 0, 32+len(codes)+4*rows)
	out = append(out, PayloadVersion...)
	out = append(out, byte(c.Variant), byte(c.Bits))
	out = binary.LittleEndian.AppendUint16(out, uint16(c.Dim))
	out = binary.LittleEndian.AppendUint32(out, uint32(rows))
	out = binary.LittleEndian.AppendUint32(out, c.Seed)
	if c.Variant == IP {
		out = append(out, byte(q.mseBits), 0, 0, 0)
	}
	column := func(off, size int) {
		out = binary.LittleEndian.AppendUint32(out, uint32(rows*size))
		for r := range rows {
			rec := codes[r*q.rowSize:]
			out = append(out, rec[off:off+size]...)
		}
	}
	column(0, 4)
	if c.Variant == IP {
		column(4, 4)
		column(8+q.mseLen, q.qjlLen)
		column(8, q.mseLen)
	} else {
		column(4, q.mseLen)
	}
	return out, nil
}

// UnmarshalPayload decodes p into code records appended to dst, after
// checking that p was written by a quantizer of the same configuration.
func (q *Quantizer) UnmarshalPayload(dst, p []byte) ([]byte, error) {
	pl, err := DecodePayload(p)
	if err != nil {
		return dst, err
	}
	c := q.cfg
	if pl.Variant != c.Variant || pl.Bits != c.Bits || pl.Dim != c.Dim || pl.Seed != c.Seed {
		return dst, fmt.Errorf("%w: compressed vector payload is %s/%d bits/%d-d/seed %d, the quantizer %s/%d bits/%d-d/seed %d",
			cerrors.ErrInvalid, pl.Variant, pl.Bits, pl.Dim, pl.Seed, c.Variant, c.Bits, c.Dim, c.Seed)
	}
	for r := range pl.Rows {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(pl.Norms[r]))
		mse := pl.Indices[r*q.mseLen : (r+1)*q.mseLen]
		if c.Variant == MSE {
			dst = append(dst, mse...)
			continue
		}
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(pl.Residual[r]))
		dst = append(dst, mse...)
		dst = append(dst, pl.QJL[r*q.qjlLen:(r+1)*q.qjlLen]...)
	}
	return dst, nil
}
