package quant

// Bit packing, LSB first (C.14 item 3): bit k of value j goes to stream
// position j·b+k, and bit i of byte p is stream position 8·p+i. A row is
// padded with zero bits to a whole byte.

// packedLen is the bytes of n values of b bits.
func packedLen(n, b int) int { return (n*b + 7) / 8 }

// pack writes the low b bits of every value of src into dst (zeroed first,
// packedLen(len(src), b) bytes).
func pack(dst []byte, src []uint8, b int) {
	clear(dst)
	if b == 4 {
		for j := 0; j+1 < len(src); j += 2 {
			dst[j/2] = src[j]&15 | src[j+1]<<4
		}
		if len(src)%2 == 1 {
			dst[len(src)/2] = src[len(src)-1] & 15
		}
		return
	}
	pos := 0
	for _, v := range src {
		for k := 0; k < b; k++ {
			if v>>k&1 != 0 {
				dst[pos>>3] |= 1 << (pos & 7)
			}
			pos++
		}
	}
}

// unpack reads n values of b bits from src into dst (len n).
func unpack(dst []uint8, src []byte, b int) {
	mask := uint8(1)<<b - 1
	pos := 0
	for j := range dst {
		// A value spans at most two bytes (b ≤ 8).
		w := uint16(src[pos>>3])
		if (pos&7)+b > 8 {
			w |= uint16(src[pos>>3+1]) << 8
		}
		dst[j] = uint8(w>>(pos&7)) & mask
		pos += b
	}
}
