package catalog

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"unique"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/contextd/contextd/index/snapfmt"
	"github.com/contextd/contextd/persist"
)

// Snapshots. An index opened from its on-disk snapshot used to rebuild
// its catalog from a full SQL scan of the access fields: 1.3 s of the
// 100k-entry start-up for each of the engine's two catalogs (2026-12-03,
// 2-core AMD EPYC, loaded machine). The catalog now writes itself beside
// the index (Encode) and reads itself back (Decode) in about 60 ms at
// 100k (BenchmarkDecode), keeping every ordinal: a vector index keys its
// chunks by ordinal, so a decoded catalog must hand out the same ones,
// and the same ordinal on the next Put of a new id (the free list's order
// is kept too).
//
// Format, little-endian, varints as encoding/binary's:
//
//	magic "CXCATLG1"
//	slots uvarint, values uvarint, idBytes uvarint
//	values: per distinct field value (owner, grant principal, thread,
//	        source, content type, tag): length uvarint, bytes
//	ids:    every live id's bytes, concatenated (idBytes in all)
//	slots:  per ordinal flags u8 (1 live, 2 public, 4 summarized); a
//	        live one then has id length, owner, thread, source, content
//	        type (value numbers), users, groups, tags (count, value
//	        numbers), images, node summaries (counts), created (zigzag
//	        varint, unix µs), length in index terms
//	free:   count uvarint, ordinals uvarint (the free list, in order)
//	meta:   the metadata columns (snapshot_meta.go)
//	crc32 (Castagnoli) u32 of every byte before it
//
// The ids live in one string and every slot's id is a slice of it: one
// allocation instead of one per entry (the 100k ids are 3.3 MB either way;
// an id removed later keeps its bytes until the catalog is dropped, a few
// percent at most between restarts).

// 2: the metadata section (snapshot_meta.go); 3: the summarized flag,
// the image and node summary counts (get_statistics from the catalog:
// stats.go). A version 2 snapshot still decodes, without those (Counts
// is false, and such a catalog encodes as version 2 again): the vector
// index, which never counts, keeps its state snapshot across the change
// (without it start-up reconciles the graph with SQL, 11.9 s at 100k
// entries), while the catalogs get_statistics reads refuse it and are
// rebuilt from the store (about 1.3 s at 100k).
const (
	catalogMagic   = "CXCATLG3"
	catalogMagicV2 = "CXCATLG2"
)

// ErrCorrupt wraps every reason Decode refuses a snapshot; the caller
// then rebuilds the catalog from its source.
var ErrCorrupt = errors.New("catalog snapshot is corrupt")

const (
	slotLive       = 1
	slotPublic     = 2
	slotSummarized = 4
)

// Reset empties the catalog (for a rebuild).
func (c *Catalog) Reset() { c.Replace(New()) }

// Replace makes c hold what n holds (a catalog read from a snapshot, or
// an empty one); n must not be used afterwards.
func (c *Catalog) Replace(n *Catalog) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ords, c.seed, c.slots, c.shapes, c.free, c.created = n.ords, n.seed, n.slots, n.shapes, n.free, n.created
	c.length, c.tokens, c.blockMax, c.noCounts = n.length, n.tokens, nil, n.noCounts
	for ord := range c.slots { // block bounds are derived: rebuild them
		if c.slots[ord].live() {
			c.noteCreated(uint32(ord), c.created[ord])
		}
	}
	c.all, c.public = n.all, n.public
	c.owner, c.user, c.group = n.owner, n.user, n.group
	c.thread, c.source, c.ctype, c.tag, c.know = n.thread, n.source, n.ctype, n.tag, n.know
	switch {
	case c.meta == nil:
	case n.meta != nil: // a metadata catalog's snapshot (or NewMeta)
		c.meta, c.unserved = n.meta, n.unserved
	default:
		// A snapshot without metadata columns: every entry it holds is
		// unserved, so metadata conditions go to SQL (List's fallback)
		// until the entry is written again; an empty catalog has none.
		c.meta, c.unserved = map[string]*column{}, 0
		for ord := range c.slots {
			if c.slots[ord].live() {
				c.slots[ord].unserved = true
				c.unserved++
			}
		}
	}
}

// Counts says whether the catalog knows every entry's summary flag,
// image and node counts (Stats): false when it was decoded from a
// version 2 snapshot, until it is reset.
func (c *Catalog) Counts() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return !c.noCounts
}

// Encode appends the catalog's snapshot to buf and returns it. It holds
// the read lock: Put and Remove wait, Allowed runs beside it. A catalog
// without counts (Counts) writes version 2.
func (c *Catalog) Encode(buf []byte) []byte {
	c.mu.RLock()
	defer c.mu.RUnlock()
	legacy := c.noCounts
	start := len(buf)
	num := map[string]uint64{}
	var values []string
	value := func(s string) uint64 {
		n, ok := num[s]
		if !ok {
			n = uint64(len(values))
			num[s] = n
			values = append(values, s)
		}
		return n
	}
	// The slots section first (it numbers the values), then the header.
	var body []byte
	idBytes := 0
	for i := range c.slots {
		s := &c.slots[i]
		if !s.live() {
			body = append(body, 0)
			continue
		}
		k := &c.shapes.recs[s.shape].key
		f := byte(slotLive)
		if k.public {
			f |= slotPublic
		}
		if k.summarized && !legacy {
			f |= slotSummarized
		}
		body = append(body, f)
		n := len(s.id) // the text's length (ids.go)
		if s.packed {
			n = 2 * packedIDLen
		}
		idBytes += n
		body = binary.AppendUvarint(body, uint64(n))
		for _, v := range [...]str{k.owner, k.thread, k.source, k.ctype} {
			body = binary.AppendUvarint(body, value(v.Value()))
		}
		for _, list := range [...]string{k.users, k.groups, k.tags} {
			body = binary.AppendUvarint(body, uint64(count(list)))
			for v := range strs(list) {
				body = binary.AppendUvarint(body, value(v))
			}
		}
		if !legacy {
			body = binary.AppendUvarint(body, uint64(k.images))
			body = binary.AppendUvarint(body, uint64(k.nodes))
		}
		body = binary.AppendVarint(body, c.created[i])
		body = binary.AppendUvarint(body, uint64(c.length[i]))
	}
	body = binary.AppendUvarint(body, uint64(len(c.free)))
	for _, o := range c.free {
		body = binary.AppendUvarint(body, uint64(o))
	}
	body = c.encodeMeta(body)
	if legacy {
		buf = append(buf, catalogMagicV2...)
	} else {
		buf = append(buf, catalogMagic...)
	}
	buf = binary.AppendUvarint(buf, uint64(len(c.slots)))
	buf = binary.AppendUvarint(buf, uint64(len(values)))
	buf = binary.AppendUvarint(buf, uint64(idBytes))
	for _, v := range values {
		buf = binary.AppendUvarint(buf, uint64(len(v)))
		buf = append(buf, v...)
	}
	for i := range c.slots {
		if s := &c.slots[i]; s.live() && s.packed {
			buf = hex.AppendEncode(buf, unsafe.Slice(unsafe.StringData(s.id), len(s.id)))
		} else if s.live() {
			buf = append(buf, s.id...)
		}
	}
	buf = append(buf, body...)
	return snapfmt.Seal(buf, start)
}

// WriteTo writes the catalog's snapshot (Encode) to w.
func (c *Catalog) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(c.Encode(nil))
	return int64(n), err
}

// Decode reads a snapshot written by Encode: the catalog as it was, with
// the same ordinals. Damage of any kind (truncation, checksum, an
// impossible reference) is an error wrapping ErrCorrupt.
func Decode(data []byte) (*Catalog, error) {
	legacy := false
	body, err := snapfmt.Open(data, catalogMagic)
	if err != nil {
		var err2 error
		if body, err2 = snapfmt.Open(data, catalogMagicV2); err2 != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		legacy = true
	}
	c, err := decode(&snapfmt.Reader{B: body}, legacy)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return c, nil
}

// decode reads a snapshot's body; legacy: version 2, without the
// summarized flag, image and node counts.
func decode(r *snapfmt.Reader, legacy bool) (*Catalog, error) {
	nslots := r.Count(1)
	if nslots > math.MaxUint32 {
		r.Fail("%d slots", nslots)
	}
	values := make([]str, r.Count(1))
	idBytes := r.Count(1)
	for i := range values {
		values[i] = unique.Make(string(r.Bytes(r.Count(1))))
	}
	ids := r.Bytes(idBytes) // the snapshot's bytes: read, not kept
	if r.Err != nil {
		return nil, r.Err
	}
	// Packed ids (ids.go) share one arena, written before any is read.
	arena := make([]byte, packedIDLen*nslots)
	arenaStr := unsafe.String(unsafe.SliceData(arena), len(arena))
	c := New()
	c.noCounts = legacy
	c.slots = make([]slot, nslots)
	c.created = make([]int64, nslots)
	c.length = make([]uint32, nslots)
	c.ords.reserve(nslots)
	// A probe of the duplicate check compares the ids' hashes before the
	// ids: comparing an id reads its slot and its bytes, two cache misses
	// a probe at a million slots, and the check was 2.0 of the 4.5 s of
	// CPU that four starts of a 1M database spent decoding catalogs
	// (2026-12-05). The hashes are dropped with the decoder.
	hashes := make([]uint64, nslots)
	// Bitmaps are built from sorted ordinal lists (ordinals arrive in
	// order), container by container, not one Add at a time; the lists
	// are indexed by value number, not looked up by string.
	const (
		kOwner = iota
		kUser
		kThread
		kSource
		kCType
		kTag
		kinds
	)
	var lists [kinds][][]uint32
	for k := range lists {
		lists[k] = make([][]uint32, len(values))
	}
	var all, public []uint32
	idAt := 0
	num := func(k int, ord uint32) str {
		v := r.Uvarint()
		if v >= uint64(len(values)) {
			r.Fail("value %d of %d", v, len(values))
			return str{}
		}
		if k >= 0 {
			lists[k][v] = append(lists[k][v], ord)
		}
		return values[v]
	}
	// The fields of a slot, as written, name its shape within this
	// snapshot: a slot whose bytes were seen takes that shape without
	// encoding its lists and hashing them (by public and summarized
	// flags, which are written apart).
	var byFields [4]map[string]uint32
	for i := range byFields {
		byFields[i] = map[string]uint32{}
	}
	var enc [3][]byte // scratch: the encoded users, groups and tags
	for i := 0; i < nslots && r.Err == nil; i++ {
		f := r.Bytes(1)
		if r.Err != nil {
			break
		}
		if f[0] == 0 {
			continue
		}
		known := byte(slotLive | slotPublic | slotSummarized)
		if legacy {
			known = slotLive | slotPublic
		}
		if f[0]&^known != 0 || f[0]&slotLive == 0 {
			r.Fail("slot %d has flags %d", i, f[0])
			break
		}
		ord := uint32(i)
		n := int(r.Uvarint())
		if n < 0 || n > len(ids)-idAt {
			r.Fail("slot %d: id past the ids", i)
			break
		}
		var id string // the slot's kept form
		packed := false
		if k := (*[packedIDLen]byte)(arena[i*packedIDLen:]); n > 0 && packID(k, unsafe.String(&ids[idAt], n)) {
			id, packed = arenaStr[i*packedIDLen:(i+1)*packedIDLen], true
		} else {
			id = string(ids[idAt : idAt+n])
		}
		idAt += n
		fields := r.B
		k := shapeKey{public: f[0]&slotPublic != 0, summarized: f[0]&slotSummarized != 0}
		k.owner, k.thread, k.source, k.ctype = num(kOwner, ord), num(kThread, ord), num(kSource, ord), num(kCType, ord)
		// Group postings are added one by one below, from the shape.
		for j, kind := range [...]int{kUser, -1, kTag} {
			enc[j] = enc[j][:0]
			for range r.Count(1) {
				if v := num(kind, ord); r.Err == nil {
					enc[j] = appendString(enc[j], v.Value())
				}
			}
		}
		if !legacy {
			images, nodes := r.Uvarint(), r.Uvarint()
			if images > math.MaxUint32 || nodes > math.MaxUint32 {
				r.Fail("slot %d: %d images, %d nodes", i, images, nodes)
			}
			k.images, k.nodes = uint32(images), uint32(nodes)
		}
		fields = fields[:len(fields)-len(r.B)]
		created := r.Varint()
		length := r.Uvarint()
		if length > math.MaxUint32 {
			r.Fail("slot %d: length %d", i, length)
		}
		if r.Err != nil {
			break
		}
		h := c.idHash(id)
		if _, dup := c.ords.find(h, func(o uint32) bool {
			return hashes[o] == h && c.slots[o].id == id && c.slots[o].packed == packed
		}); dup {
			r.Fail("slot %d: an id twice", i)
			break
		}
		pub := 0
		if k.public {
			pub = 1
		}
		if k.summarized {
			pub |= 2
		}
		sh, ok := byFields[pub][string(fields)]
		if ok {
			c.shapes.recs[sh].refs++
		} else {
			k.users, k.groups, k.tags = string(enc[0]), string(enc[1]), string(enc[2])
			sh = c.shapes.acquire(k)
			byFields[pub][string(fields)] = sh
		}
		c.slots[i] = slot{id: id, packed: packed, shape: sh}
		c.ords.insert(h, ord, c.ordHash)
		hashes[i] = h
		c.created[i] = created
		c.length[i] = uint32(length)
		c.tokens += length
		all = append(all, ord)
		if k.public {
			public = append(public, ord)
		}
		for g := range strs(c.shapes.recs[sh].key.groups) {
			c.addGroup(g, ord)
		}
	}
	nfree := r.Count(1)
	if r.Err == nil && idAt != len(ids) {
		r.Fail("%d id bytes unused", len(ids)-idAt)
	}
	if r.Err == nil && nfree != nslots-len(all) {
		r.Fail("%d free ordinals for %d dead slots", nfree, nslots-len(all))
	}
	seen := map[uint32]bool{}
	for range nfree {
		o := r.Uvarint()
		if r.Err != nil {
			break
		}
		if o >= uint64(nslots) || c.slots[o].live() || seen[uint32(o)] {
			r.Fail("free ordinal %d is not a dead slot", o)
			break
		}
		seen[uint32(o)] = true
		c.free = append(c.free, uint32(o))
	}
	c.decodeMeta(r)
	if r.Err == nil && len(r.B) != 0 {
		r.Fail("%d bytes after the metadata", len(r.B))
	}
	if r.Err != nil {
		return nil, r.Err
	}
	c.all = roaring.BitmapOf(all...)
	c.public = roaring.BitmapOf(public...)
	for k, m := range [kinds]map[string]*roaring.Bitmap{c.owner, c.user, c.thread, c.source, c.ctype, c.tag} {
		for v, ords := range lists[k] {
			if len(ords) > 0 {
				// A value repeated in one slot (two equal tags) is
				// listed twice; BitmapOf takes it once.
				m[values[v].Value()] = roaring.BitmapOf(ords...)
			}
		}
	}
	for t, b := range c.thread { // derived, not stored
		if persist.IsKnowledgeThread(t) {
			c.know.Or(b)
		}
	}
	return c, nil
}
