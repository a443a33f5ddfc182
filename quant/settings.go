package quant

// Settings are an engine's compression settings (C.14:
// ENABLE_EMBEDDING_COMPRESSION, COMPRESSION_BITS, COMPRESSION_VARIANT,
// COMPRESSION_SEED, COMPRESSION_KEEP_FLOAT). The zero value is the
// default: compression on, 4 bits, mse, seed 0, and the float32 vectors
// kept beside the codes for re-ranking.
type Settings struct {
	// Disabled turns compression off (ENABLE_EMBEDDING_COMPRESSION=false):
	// the vector index holds float32 vectors only.
	Disabled bool
	Bits     int // 2-4; 0 means 4
	Variant  Variant
	Seed     uint32
	// CodesOnly drops the float32 vectors from the in-process index
	// (COMPRESSION_KEEP_FLOAT=false): about 7.5 times less memory for the
	// vectors, but results ranked by the codes alone (recall@10 0.80 at 4
	// bits on clustered 384-d vectors, against 0.999 re-ranked; README,
	// Compression).
	CodesOnly bool
}

// Quantizer returns the quantizer of s for vectors of dim dimensions, or
// nil when compression is disabled.
func (s Settings) Quantizer(dim int) (*Quantizer, error) {
	if s.Disabled {
		return nil, nil
	}
	return New(Config{Dim: dim, Bits: s.Bits, Variant: s.Variant, Seed: s.Seed})
}
