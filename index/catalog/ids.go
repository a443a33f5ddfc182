package catalog

import (
	"encoding/hex"
	"hash/maphash"
	"strings"
	"unsafe"
)

// Entry ids in the server's form, 32 lowercase hex digits (a UUIDv7
// without its dashes), are kept packed: the 16 bytes they spell, half of
// what their text takes. Every engine holds two catalogs of all entries
// (the full-text index's and the vector index's), so at one million
// entries the ids were 61 MiB of a 621 MiB Go heap (the bench at 1M,
// 2026-12-05). Other ids are kept as given. Hex digits sort as the nibbles
// they spell, so packed ids compare in the order of their texts.

// packedIDLen is the length of a packed id.
const packedIDLen = 16

// packID writes the 16 bytes of id into k when id is in the server's form.
func packID(k *[packedIDLen]byte, id string) bool {
	if len(id) != 2*packedIDLen {
		return false
	}
	for i := range packedIDLen {
		hi, ok1 := nibble(id[2*i])
		lo, ok2 := nibble(id[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		k[i] = hi<<4 | lo
	}
	return true
}

func nibble(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// text is the slot's id as callers know it.
func (s *slot) text() string {
	if !s.packed {
		return s.id
	}
	return hex.EncodeToString(unsafe.Slice(unsafe.StringData(s.id), len(s.id)))
}

// idKey is an id looked up: its packed bytes when it has them.
type idKey struct {
	id     string
	k      [packedIDLen]byte
	packed bool
}

func keyOfID(id string) idKey {
	q := idKey{id: id}
	q.packed = packID(&q.k, id)
	return q
}

// holds reports whether the slot keeps the id of q.
func (s *slot) holds(q *idKey) bool {
	if q.packed {
		return s.packed && s.id == string(q.k[:])
	}
	return !s.packed && s.id == q.id
}

// hash is the hash of the form a slot keeps of q's id (idHash of it).
func (c *Catalog) keyHash(q *idKey) uint64 {
	if q.packed {
		return maphash.Bytes(c.seed, q.k[:])
	}
	return maphash.String(c.seed, q.id)
}

// compareIDs compares the ids of two slots in the order of their texts.
func compareIDs(a, b *slot) int {
	if a.packed == b.packed {
		return strings.Compare(a.id, b.id)
	}
	return strings.Compare(a.text(), b.text())
}

// compareID compares a slot's id with the text id, in the order of texts.
func compareID(a *slot, id string) int {
	if !a.packed {
		return strings.Compare(a.id, id)
	}
	var k [packedIDLen]byte
	if packID(&k, id) {
		return strings.Compare(a.id, string(k[:]))
	}
	return strings.Compare(a.text(), id)
}

// Ordinal is the ordinal of a live id.
func (c *Catalog) Ordinal(id string) (uint32, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.lookup(id)
}

// idHash is the hash of a slot's kept form of an id (ids.go).
func (c *Catalog) idHash(kept string) uint64 { return maphash.String(c.seed, kept) }

// ordHash is the hash of the id of the live ordinal o.
func (c *Catalog) ordHash(o uint32) uint64 { return c.idHash(c.slots[o].id) }

// lookup is the ordinal of the live id (under the caller's lock).
func (c *Catalog) lookup(id string) (uint32, bool) {
	q := keyOfID(id)
	return c.lookupKey(&q)
}

func (c *Catalog) lookupKey(q *idKey) (uint32, bool) {
	return c.ords.find(c.keyHash(q), func(o uint32) bool { return c.slots[o].holds(q) })
}

// ID is the id of a live ordinal.
func (c *Catalog) ID(ord uint32) (string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if int(ord) >= len(c.slots) || !c.slots[ord].live() {
		return "", false
	}
	return c.slots[ord].text(), true
}

// Live reports whether ord is a live ordinal, without spelling its id
// (ID builds the text of a packed one).
func (c *Catalog) Live(ord uint32) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return int(ord) < len(c.slots) && c.slots[ord].live()
}

// Name sets the id of each hit whose ordinal is live, under one read lock
// (a MaxScore selection names a few hundred kept hits and their ties, the
// semantic leg its two hundred best). Its slots and their packed ids are
// read in passes of their own before any id is spelled: at 1M entries
// each is a cache miss (the slots are 32 MB), and a loop that also spelled
// and allocated each id waited for them one at a time, about 1 µs a hit.
// In passes the misses overlap: alternated call by call over the bench's
// hundred hybrid questions, the full-text leg's times summed 4-5 % lower
// and the calls' 2-4 % (2026-12-05).
func Name[H any](c *Catalog, hits []H, ord func(*H) uint32, set func(*H, string)) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ids := make([]string, len(hits)) // the slots' id fields ("": not live)
	for i := range hits {
		if o := ord(&hits[i]); int(o) < len(c.slots) && c.slots[o].live() {
			ids[i] = c.slots[o].id
		}
	}
	var touch byte
	for _, id := range ids {
		if id != "" {
			touch += id[0]
		}
	}
	c.touched.Add(uint32(touch)) // keeps the reads
	for i := range hits {
		if ids[i] != "" {
			set(&hits[i], c.slots[ord(&hits[i])].text())
		}
	}
}
