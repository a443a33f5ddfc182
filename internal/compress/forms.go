package compress

import (
	"encoding/hex"
	"fmt"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/quant"
)

// Codecs reads stored payloads of any configuration: a migration meets
// codes written under the recorded provenance (or, cut short before it
// was recorded, under another) and needs the codec of each.
type Codecs struct {
	recorded *persist.Compression // nil when none is recorded
	byHeader map[quant.Header]*Codec
}

// NewCodecs reads payloads; recorded is the database's provenance (nil
// when it has none), whose fingerprint must be this build's rotation.
func NewCodecs(recorded *persist.Compression) *Codecs {
	return &Codecs{recorded: recorded, byHeader: map[quant.Header]*Codec{}}
}

// Of returns the codec that wrote payload p.
func (cs *Codecs) Of(p []byte) (*Codec, error) {
	pl, err := quant.DecodePayload(p)
	if err != nil {
		return nil, err
	}
	h := quant.Header{Variant: pl.Variant, Bits: pl.Bits, Dim: pl.Dim, Seed: pl.Seed}
	if c, ok := cs.byHeader[h]; ok {
		return c, nil
	}
	c, err := New(quant.Settings{Bits: h.Bits, Variant: h.Variant, Seed: h.Seed}, h.Dim)
	if err != nil {
		return nil, err
	}
	if r := cs.recorded; r != nil && r.Bits == h.Bits && r.Variant == h.Variant.String() && r.Seed == h.Seed && r.Dim == h.Dim {
		if fp := c.q.Fingerprint(); r.Fingerprint != hex.EncodeToString(fp[:]) {
			return nil, fmt.Errorf("%w: the stored codes were written with another rotation (fingerprint %s, this build's %x); regenerate the vectors with `contextd migrate reembed`",
				cerrors.ErrInvalid, r.Fingerprint, fp)
		}
	}
	cs.byHeader[h] = c
	return c, nil
}

// Is reports whether payload p was written by codec c's configuration.
func (c *Codec) Is(p []byte) bool {
	h, err := quant.DecodePayload(p)
	if err != nil {
		return false
	}
	cfg := c.q.Config()
	return h.Variant == cfg.Variant && h.Bits == cfg.Bits && h.Dim == cfg.Dim && h.Seed == cfg.Seed && h.Rows == 1
}
