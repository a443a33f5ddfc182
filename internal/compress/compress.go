// Package compress owns the compressed storage of chunk vectors (C.14):
// the codec that turns an entry's float32 chunk vectors into TQP1 payloads
// before its write transaction (keeping the floats only when asked), the
// provenance the database records (compression_metadata) and the start-up
// check that refuses a database whose stored form the configuration does
// not match, naming the migration that converts it.
//
//	c, _ := compress.New(quant.Settings{}, 100)       // 4-bit mse, codes only
//	_ = c.Compress(&emb)                              // chunk.Code = "TQP1…", chunk.Vector = nil
//	err := compress.Check(ctx, store, c)              // ErrCompressionChanged on a mismatch
//	rec, _ := c.Record(nil, chunk.Code)               // the code record vector.Index.AddCode takes
package compress

import (
	"encoding/hex"
	"fmt"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/quant"
)

// Provider is the compression_metadata provider of package quant's codes.
const Provider = "turboquant"

// The migrations the start-up error names.
const (
	CompressCommand   = "contextd migrate compress"
	DecompressCommand = "contextd migrate decompress"
)

// Codec compresses chunk vectors with one quantizer. A nil *Codec is
// compression off: Compress leaves vectors alone. It is safe for
// concurrent use.
type Codec struct {
	q         *quant.Quantizer
	keepFloat bool
	settings  quant.Settings
	sem       chan struct{} // COMPRESSION_MAX_CONCURRENT
}

// New returns the codec of s for dim-dimensional vectors, nil when s
// disables compression.
func New(s quant.Settings, dim int) (*Codec, error) {
	if s.Disabled {
		return nil, nil
	}
	q, err := s.Quantizer(dim)
	if err != nil {
		return nil, fmt.Errorf("compression: %w", err)
	}
	n := s.MaxConcurrent
	if n <= 0 {
		n = 4
	}
	return &Codec{q: q, keepFloat: !s.CodesOnly, settings: s, sem: make(chan struct{}, n)}, nil
}

// Quantizer is the codec's quantizer.
func (c *Codec) Quantizer() *quant.Quantizer { return c.q }

// KeepFloat reports whether the float32 vectors are stored beside the codes.
func (c *Codec) KeepFloat() bool { return c != nil && c.keepFloat }

// Compress sets the Code of every chunk of e to its one-row TQP1 payload
// and, unless the codec keeps floats, drops its Vector. At most
// COMPRESSION_MAX_CONCURRENT compressions run at once (an entry's chunks
// are compressed in one turn: 100-d at 4 bits encodes at about 190,000
// vectors/s, far below an embedding's cost). A nil codec does nothing.
func (c *Codec) Compress(e *persist.Embeddings) error {
	if c == nil || e == nil {
		return nil
	}
	c.sem <- struct{}{}
	defer func() { <-c.sem }()
	var rec []byte
	for i := range e.Chunks {
		ch := &e.Chunks[i]
		if ch.Vector == nil {
			continue
		}
		var err error
		if rec, err = c.q.Encode(rec[:0], ch.Vector); err != nil {
			return fmt.Errorf("compress chunk %d: %w", i, err)
		}
		if ch.Code, err = c.q.MarshalPayload(rec); err != nil {
			return fmt.Errorf("compress chunk %d: %w", i, err)
		}
		if !c.keepFloat {
			ch.Vector = nil
		}
	}
	return nil
}

// Record decodes a stored one-row payload into its code record, appended
// to dst; a payload of another configuration or a corrupt one is an error.
func (c *Codec) Record(dst, payload []byte) ([]byte, error) {
	n := len(dst)
	out, err := c.q.UnmarshalPayload(dst, payload)
	if err != nil {
		return dst, err
	}
	if len(out)-n != c.q.CodeSize() {
		return dst, fmt.Errorf("%w: a chunk payload holds %d rows, want 1", cerrors.ErrInvalid, (len(out)-n)/c.q.CodeSize())
	}
	return out, nil
}

// Vector is the float32 form of a stored chunk: its Vector when kept,
// else the reconstruction of its code.
func (c *Codec) Vector(ch *persist.ChunkVector) ([]float32, error) {
	if ch.Vector != nil || c == nil {
		return ch.Vector, nil
	}
	rec, err := c.Record(nil, ch.Code)
	if err != nil {
		return nil, err
	}
	v := make([]float32, c.q.Dim())
	return v, c.q.Decode(v, rec)
}

// Provenance is the compression_metadata record of the codec's codes.
func (c *Codec) Provenance() persist.Compression {
	cfg := c.q.Config()
	fp := c.q.Fingerprint()
	return persist.Compression{Provider: Provider, Bits: cfg.Bits, Variant: cfg.Variant.String(),
		Seed: cfg.Seed, Dim: cfg.Dim, Fingerprint: hex.EncodeToString(fp[:])}
}

// Settings are the settings the codec was made from.
func (c *Codec) Settings() quant.Settings { return c.settings }

// Same reports whether a and b record the same codes (CreatedAt aside).
func Same(a, b persist.Compression) bool {
	a.CreatedAt = b.CreatedAt
	return a == b
}

// Describe names a provenance record for messages.
func Describe(p persist.Compression) string {
	return fmt.Sprintf("%s %d-bit %s, seed %d, %d dimensions", p.Provider, p.Bits, p.Variant, p.Seed, p.Dim)
}
