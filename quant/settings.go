package quant

// Settings are an engine's compression settings (C.14:
// ENABLE_EMBEDDING_COMPRESSION, COMPRESSION_BITS, COMPRESSION_VARIANT,
// COMPRESSION_SEED, COMPRESSION_KEEP_FLOAT). The zero value is the
// default: compression on, 4 bits, mse, seed 0, codes only.
type Settings struct {
	// Disabled turns compression off (ENABLE_EMBEDDING_COMPRESSION=false):
	// the vector index holds float32 vectors only.
	Disabled bool
	Bits     int // 2-4; 0 means 4
	Variant  Variant
	Seed     uint32
	// KeepFloat keeps the float32 vectors beside the codes, in SQL and in
	// the in-process index (COMPRESSION_KEEP_FLOAT=true), for exact
	// re-ranking. Without them (the default) SQL stores about 7 times less
	// and the index's heap is 2.3 to 4.5 times smaller at 100k vectors,
	// but results are ranked by the codes alone (recall@10 0.83 on 100k
	// sentence vectors and 0.58 on 100k clustered 384-d ones at 4 bits,
	// against 0.984 with the floats; README, Compression).
	KeepFloat bool
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

// Status is the compression block of get_statistics (C.15), in the shape
// of the root package's FeatureStatus.
type Status struct {
	Enabled   bool   `json:"enabled"`
	Available bool   `json:"available"`
	Message   string `json:"message,omitempty"`
}

// NotBootstrapped is C.15's message for compression that is on while the
// store holds no compression provenance; SQL keeps float32 vectors and
// no compression_metadata row in this build.
const NotBootstrapped = "Compression enabled but provenance not bootstrapped"

// Status reports s for get_statistics: off without embeddings or when
// disabled, else enabled and not available (NotBootstrapped), since the
// stored vectors are not compressed yet.
func (s Settings) Status(embeddings bool) Status {
	if s.Disabled || !embeddings {
		return Status{}
	}
	return Status{Enabled: true, Message: NotBootstrapped}
}
