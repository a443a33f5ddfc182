package quant

// Settings are an engine's compression settings (C.14:
// ENABLE_EMBEDDING_COMPRESSION, COMPRESSION_BITS, COMPRESSION_VARIANT,
// COMPRESSION_SEED, COMPRESSION_KEEP_FLOAT). The zero value is the
// default: compression on, 4 bits, mse, seed 0, float32 kept beside the
// codes.
type Settings struct {
	// Disabled turns compression off (ENABLE_EMBEDDING_COMPRESSION=false):
	// the vector index holds float32 vectors only.
	Disabled bool
	Bits     int // 2-4; 0 means 4
	Variant  Variant
	Seed     uint32
	// CodesOnly drops the float32 vectors kept beside the codes, in SQL
	// and in the in-process index (COMPRESSION_KEEP_FLOAT=false). SQL then
	// stores about 7 times less and the index's heap is 2.3 to 4.5 times
	// smaller at 100k vectors, but results are ranked by the codes alone
	// (recall@10 0.83 on 100k sentence vectors and 0.58 on 100k clustered
	// 384-d ones at 4 bits, against 0.984 with the floats; Cranfield
	// semantic nDCG@10 0.2256 against 0.2393; README, Compression), which
	// is why keeping them is the default.
	CodesOnly bool
	// MaxConcurrent bounds concurrent compressions
	// (COMPRESSION_MAX_CONCURRENT); 0 means 4.
	MaxConcurrent int
}

// Quantizer returns the quantizer of s for vectors of dim dimensions, or
// nil when compression is disabled.
func (s Settings) Quantizer(dim int) (*Quantizer, error) {
	if s.Disabled {
		return nil, nil
	}
	return New(Config{Dim: dim, Bits: s.Bits, Variant: s.Variant, Seed: s.Seed})
}
