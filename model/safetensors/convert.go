package safetensors

import (
	"encoding/binary"
	"math"
)

// converters turn a tensor's little-endian bytes into float32, one per
// dtype that has a meaningful float value. out has one slot per element
// and raw exactly the bytes those elements take (checked at Open).
var converters = map[string]func(out []float32, raw []byte){
	"F32": func(out []float32, raw []byte) {
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	},
	"F16": func(out []float32, raw []byte) {
		for i := range out {
			out[i] = HalfToFloat32(binary.LittleEndian.Uint16(raw[2*i:]))
		}
	},
	"BF16": func(out []float32, raw []byte) {
		for i := range out {
			// bfloat16 is the top half of a float32.
			out[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(raw[2*i:])) << 16)
		}
	},
	"F64": func(out []float32, raw []byte) {
		for i := range out {
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:])))
		}
	},
	"I64": func(out []float32, raw []byte) {
		for i := range out {
			out[i] = float32(int64(binary.LittleEndian.Uint64(raw[8*i:])))
		}
	},
	"U64": func(out []float32, raw []byte) {
		for i := range out {
			out[i] = float32(binary.LittleEndian.Uint64(raw[8*i:]))
		}
	},
	"I32": func(out []float32, raw []byte) {
		for i := range out {
			out[i] = float32(int32(binary.LittleEndian.Uint32(raw[4*i:])))
		}
	},
	"U32": func(out []float32, raw []byte) {
		for i := range out {
			out[i] = float32(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	},
	"I16": func(out []float32, raw []byte) {
		for i := range out {
			out[i] = float32(int16(binary.LittleEndian.Uint16(raw[2*i:])))
		}
	},
	"U16": func(out []float32, raw []byte) {
		for i := range out {
			out[i] = float32(binary.LittleEndian.Uint16(raw[2*i:]))
		}
	},
	"I8": func(out []float32, raw []byte) {
		for i := range out {
			out[i] = float32(int8(raw[i]))
		}
	},
	"U8": func(out []float32, raw []byte) {
		for i := range out {
			out[i] = float32(raw[i])
		}
	},
}

// HalfToFloat32 converts an IEEE 754 binary16 value to float32 exactly
// (every half, subnormals, infinities and NaNs included, is a float32).
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0: // normal: rebias 15 -> 127
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	case frac == 0: // signed zero
		return math.Float32frombits(sign)
	}
	// Subnormal half: frac * 2^-24, normalised for float32.
	e := uint32(113) // 127 - 14
	for frac&0x400 == 0 {
		frac <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (frac&0x3ff)<<13)
}
