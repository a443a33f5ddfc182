package catalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unique"

	"github.com/RoaringBitmap/roaring/v2"
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
//	slots:  per ordinal flags u8 (1 live, 2 public); a live one then has
//	        id length, owner, thread, source, content type (value
//	        numbers), users, groups, tags (count, value numbers), created
//	        (zigzag varint, unix µs), length in index terms
//	free:   count uvarint, ordinals uvarint (the free list, in order)
//	crc32 (Castagnoli) u32 of every byte before it
//
// The ids live in one string and every slot's id is a slice of it: one
// allocation instead of one per entry (the 100k ids are 3.3 MB either way;
// an id removed later keeps its bytes until the catalog is dropped, a few
// percent at most between restarts).

const catalogMagic = "CXCATLG1"

// ErrCorrupt wraps every reason Decode refuses a snapshot; the caller
// then rebuilds the catalog from its source.
var ErrCorrupt = errors.New("catalog snapshot is corrupt")

const (
	slotLive   = 1
	slotPublic = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Encode appends the catalog's snapshot to buf and returns it. It holds
// the read lock: Put and Remove wait, Allowed runs beside it.
func (c *Catalog) Encode(buf []byte) []byte {
	c.mu.RLock()
	defer c.mu.RUnlock()
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
		if !s.live {
			body = append(body, 0)
			continue
		}
		f := byte(slotLive)
		if s.public {
			f |= slotPublic
		}
		body = append(body, f)
		idBytes += len(s.id)
		body = binary.AppendUvarint(body, uint64(len(s.id)))
		for _, v := range [...]str{s.owner, s.thread, s.source, s.ctype} {
			body = binary.AppendUvarint(body, value(v.Value()))
		}
		for _, list := range [...][]string{s.users, s.groups} {
			body = binary.AppendUvarint(body, uint64(len(list)))
			for _, v := range list {
				body = binary.AppendUvarint(body, value(v))
			}
		}
		body = binary.AppendUvarint(body, uint64(len(s.tags)))
		for _, t := range s.tags {
			body = binary.AppendUvarint(body, value(t.Value()))
		}
		body = binary.AppendVarint(body, s.created)
		body = binary.AppendUvarint(body, uint64(c.length[i]))
	}
	body = binary.AppendUvarint(body, uint64(len(c.free)))
	for _, o := range c.free {
		body = binary.AppendUvarint(body, uint64(o))
	}
	buf = append(buf, catalogMagic...)
	buf = binary.AppendUvarint(buf, uint64(len(c.slots)))
	buf = binary.AppendUvarint(buf, uint64(len(values)))
	buf = binary.AppendUvarint(buf, uint64(idBytes))
	for _, v := range values {
		buf = binary.AppendUvarint(buf, uint64(len(v)))
		buf = append(buf, v...)
	}
	for i := range c.slots {
		if c.slots[i].live {
			buf = append(buf, c.slots[i].id...)
		}
	}
	buf = append(buf, body...)
	return binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf[start:], castagnoli))
}

// WriteTo writes the catalog's snapshot (Encode) to w.
func (c *Catalog) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(c.Encode(nil))
	return int64(n), err
}

// reader decodes a snapshot held in memory; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("truncated")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a count of items each at least min bytes long, refusing one
// the rest of the input cannot hold (a lying header allocates nothing).
func (r *reader) count(min int) int {
	v := r.uvarint()
	if v > uint64(len(r.b)/min) {
		r.fail("count %d exceeds the data", v)
		return 0
	}
	return int(v)
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.fail("truncated")
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

// Decode reads a snapshot written by Encode: the catalog as it was, with
// the same ordinals. Damage of any kind (truncation, checksum, an
// impossible reference) is an error wrapping ErrCorrupt.
func Decode(data []byte) (*Catalog, error) {
	if len(data) < len(catalogMagic)+4 || string(data[:len(catalogMagic)]) != catalogMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	body := data[:len(data)-4]
	if got, want := binary.LittleEndian.Uint32(data[len(body):]), crc32.Checksum(body, castagnoli); got != want {
		return nil, fmt.Errorf("%w: checksum %08x, want %08x", ErrCorrupt, got, want)
	}
	c, err := decode(&reader{b: body[len(catalogMagic):]})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return c, nil
}

func decode(r *reader) (*Catalog, error) {
	nslots := r.count(1)
	if nslots > math.MaxUint32 {
		r.fail("%d slots", nslots)
	}
	values := make([]str, r.count(1))
	idBytes := r.count(1)
	for i := range values {
		values[i] = unique.Make(string(r.bytes(r.count(1))))
	}
	ids := string(r.bytes(idBytes))
	if r.err != nil {
		return nil, r.err
	}
	c := New()
	c.slots = make([]slot, nslots)
	c.created = make([]int64, nslots)
	c.length = make([]uint32, nslots)
	c.ords = make(map[string]uint32, nslots)
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
		v := r.uvarint()
		if v >= uint64(len(values)) {
			r.fail("value %d of %d", v, len(values))
			return str{}
		}
		if k >= 0 {
			lists[k][v] = append(lists[k][v], ord)
		}
		return values[v]
	}
	for i := 0; i < nslots && r.err == nil; i++ {
		f := r.bytes(1)
		if r.err != nil {
			break
		}
		if f[0] == 0 {
			continue
		}
		if f[0]&^(slotLive|slotPublic) != 0 || f[0]&slotLive == 0 {
			r.fail("slot %d has flags %d", i, f[0])
			break
		}
		ord := uint32(i)
		n := int(r.uvarint())
		if n < 0 || n > len(ids)-idAt {
			r.fail("slot %d: id past the ids", i)
			break
		}
		s := slot{id: ids[idAt : idAt+n], live: true, public: f[0]&slotPublic != 0}
		idAt += n
		s.owner, s.thread, s.source, s.ctype = num(kOwner, ord), num(kThread, ord), num(kSource, ord), num(kCType, ord)
		for j, list := range [...]*[]string{&s.users, &s.groups} {
			k := r.count(1)
			if k > 0 {
				*list = make([]string, k)
				for x := range *list {
					kind := kUser
					if j == 1 {
						kind = -1 // group postings are added one by one below
					}
					if v := num(kind, ord); r.err == nil {
						(*list)[x] = v.Value()
					}
				}
			}
		}
		if k := r.count(1); k > 0 {
			s.tags = make([]str, k)
			for j := range s.tags {
				s.tags[j] = num(kTag, ord)
			}
		}
		v, m := binary.Varint(r.b)
		if m <= 0 {
			r.fail("slot %d: truncated", i)
			break
		}
		r.b = r.b[m:]
		s.created = v
		length := r.uvarint()
		if length > math.MaxUint32 {
			r.fail("slot %d: length %d", i, length)
		}
		if r.err != nil {
			break
		}
		before := len(c.ords)
		c.ords[s.id] = ord // one hash for the insert and the duplicate check
		if len(c.ords) == before {
			r.fail("slot %d: id %q twice", i, s.id)
			break
		}
		c.slots[i] = s
		c.created[i] = s.created
		c.length[i] = uint32(length)
		c.tokens += length
		all = append(all, ord)
		if s.public {
			public = append(public, ord)
		}
		for _, g := range s.groups {
			c.group[g] = c.group[g].add(ord)
		}
	}
	nfree := r.count(1)
	if r.err == nil && idAt != len(ids) {
		r.fail("%d id bytes unused", len(ids)-idAt)
	}
	if r.err == nil && nfree != nslots-len(all) {
		r.fail("%d free ordinals for %d dead slots", nfree, nslots-len(all))
	}
	seen := map[uint32]bool{}
	for range nfree {
		o := r.uvarint()
		if r.err != nil {
			break
		}
		if o >= uint64(nslots) || c.slots[o].live || seen[uint32(o)] {
			r.fail("free ordinal %d is not a dead slot", o)
			break
		}
		seen[uint32(o)] = true
		c.free = append(c.free, uint32(o))
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail("%d bytes after the free list", len(r.b))
	}
	if r.err != nil {
		return nil, r.err
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
	return c, nil
}
