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
	// GraphInt8MiB is the size of one access scope's float32 vectors from
	// which its in-process graph holds them as 8-bit integers and a scale
	// instead (COMPRESSION_GRAPH_INT8_MB; the float32 vectors stay in
	// SQL). 0 means DefaultGraphInt8MiB; a negative value never.
	GraphInt8MiB int
}

// DefaultGraphInt8MiB is GraphInt8MiB's default: 128 MiB of float32
// vectors, about 335,000 chunks of the built-in model's 100 dimensions or
// 87,000 of 384.
const DefaultGraphInt8MiB = 128

// GraphInt8Chunks is the chunk count of dim dimensions from which a scope
// graph holds 8-bit vectors (GraphInt8MiB); 0 means never.
func (s Settings) GraphInt8Chunks(dim int) int {
	mib := s.GraphInt8MiB
	switch {
	case mib < 0 || dim <= 0:
		return 0
	case mib == 0:
		mib = DefaultGraphInt8MiB
	}
	return max(1, (mib<<20)/(4*dim))
}

// Quantizer returns the quantizer of s for vectors of dim dimensions, or
// nil when compression is disabled.
func (s Settings) Quantizer(dim int) (*Quantizer, error) {
	if s.Disabled {
		return nil, nil
	}
	return New(Config{Dim: dim, Bits: s.Bits, Variant: s.Variant, Seed: s.Seed})
}
