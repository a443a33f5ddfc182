package contextd

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/contextd/contextd/persist"
)

// idGen makes UUIDv7 identifiers that are strictly increasing within the
// process: "latest entry" logic orders by id, so two ids minted in the same
// millisecond must still sort in creation order. rand_a (12 bits) carries a
// counter that restarts at a random value each millisecond.
type idGen struct {
	mu      sync.Mutex
	lastMS  uint64
	counter uint16
	now     func() time.Time
}

func newIDGenerator() *idGen { return &idGen{now: time.Now} }

func (g *idGen) next() string {
	var rnd [10]byte
	_, _ = rand.Read(rnd[:])
	g.mu.Lock()
	ms := uint64(g.now().UnixMilli())
	if ms > g.lastMS {
		g.lastMS = ms
		g.counter = binary.BigEndian.Uint16(rnd[8:]) & 0x07ff // leave headroom
	} else {
		g.counter++
		if g.counter > 0x0fff {
			g.lastMS++
			g.counter = 0
		}
	}
	ms, ctr := g.lastMS, g.counter
	g.mu.Unlock()

	var u [16]byte
	u[0], u[1], u[2] = byte(ms>>40), byte(ms>>32), byte(ms>>24)
	u[3], u[4], u[5] = byte(ms>>16), byte(ms>>8), byte(ms)
	u[6] = 0x70 | byte(ctr>>8)
	u[7] = byte(ctr)
	copy(u[8:], rnd[:8])
	u[8] = 0x80 | (u[8] & 0x3f)
	return hex.EncodeToString(u[:])
}

// idForm is what an identifier parameter turned out to be.
type idForm struct {
	raw    string // as the caller sent it
	full   string // the canonical id, when complete
	prefix string // the hex prefix, when 8-31 characters
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// parseID normalizes one identifier parameter: strip, lowercase, drop the
// hyphens of the 36-character form, then a full id or a hex prefix.
func parseID(raw string) (idForm, error) {
	s := strings.ToLower(pyStrip(raw))
	if len(s) == 36 && strings.Count(s, "-") == 4 {
		s = strings.ReplaceAll(s, "-", "")
	}
	if len(s) >= 8 && len(s) <= 31 && isHex(s) {
		return idForm{raw: raw, prefix: s}, nil
	}
	if len(s) != 32 {
		return idForm{}, invalidf("Invalid UUID identifier length (expected 32 hex chars after normalization): %s", pyQuote(raw))
	}
	if !isHex(s) {
		return idForm{}, invalidf("Invalid UUID identifier (non-hex character): %s", pyQuote(raw))
	}
	return idForm{raw: raw, full: s}, nil
}

// resolveID turns one identifier parameter into a full id, resolving a
// prefix over the entries the caller may read. The error text is the inner
// message; callers add their tool's wrapping.
func resolveID(ctx context.Context, r persist.Reader, acc persist.Access, raw string) (string, error) {
	f, err := parseID(raw)
	if err != nil {
		return "", err
	}
	if f.full != "" {
		return f.full, nil
	}
	ids, err := r.ResolvePrefix(ctx, acc, f.prefix)
	if err != nil {
		return "", err
	}
	switch len(ids) {
	case 0:
		return "", invalidf("No context entry matches prefix %s", pyQuote(raw))
	case 1:
		return ids[0], nil
	default:
		return "", invalidf("Ambiguous prefix %s matches multiple entries", pyQuote(raw))
	}
}

// wrapIDErr prefixes an identifier error with a tool's wording, keeping its kind.
func wrapIDErr(prefix string, err error) error {
	if e, ok := err.(*Error); ok {
		return &Error{Kind: e.Kind, Msg: prefix + e.Msg}
	}
	return err
}

// resolveIDs resolves a list parameter in order, stopping at the first
// failure, and collapses duplicates.
func resolveIDs(ctx context.Context, r persist.Reader, acc persist.Access, raws []string) ([]string, error) {
	out := make([]string, 0, len(raws))
	seen := make(map[string]bool, len(raws))
	for _, raw := range raws {
		id, err := resolveID(ctx, r, acc, raw)
		if err != nil {
			return nil, wrapIDErr("Invalid context ID: ", err)
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}
