// Package ids owns the minting of entry identifiers: UUIDv7 values in the
// 32-character lowercase hex form the API uses, strictly increasing within
// the process.
//
//	g := ids.NewGenerator(nil) // nil clock = time.Now
//	id := g.Next()             // "0190abcdef127…", version nibble 7
package ids

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"
)

// Generator makes UUIDv7 identifiers that are strictly increasing within
// the process: "latest entry" logic orders by id, so two ids minted in the
// same millisecond must still sort in creation order. rand_a (12 bits)
// carries a counter that restarts at a random value each millisecond.
type Generator struct {
	mu      sync.Mutex
	lastMS  uint64
	counter uint16
	now     func() time.Time
}

// NewGenerator returns a generator reading the clock now (nil = time.Now).
func NewGenerator(now func() time.Time) *Generator {
	if now == nil {
		now = time.Now
	}
	return &Generator{now: now}
}

// Next returns a new identifier. It is safe for concurrent use.
func (g *Generator) Next() string {
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
