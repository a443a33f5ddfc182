package vector

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"unsafe"

	"github.com/contextd/contextd/quant"
)

// Snapshot format, all little-endian:
//
//	magic "CXVHNSW1", version u32
//	options: dim u32, metric u8, M u32, efConstruction u32, efSearch u32,
//	         seed u64, exactBelow u32, switchCost f64, repairFraction f64
//	codes:   (version 2) storage u8 (0 float32, 1 codes, 2 codes and
//	         float32, 3 (version 3) 8-bit); when codes: variant u8, bits u8, seed u32,
//	         overfetch u32, the quantizer's fingerprint [32]u8
//	state:   nodes u32, entry u32, maxLevel u32, live u32, tombs u32, watermark u64
//	nodes:   per node key u64, level u8, flags u8 (1 tombstone, 2 free slot)
//	vectors: nodes × dim f32 (storage 0 and 2)
//	codes:   nodes × code size u8 (storage 1 and 2)
//	8-bit:   nodes × dim i8, then nodes × scale f32 (storage 3)
//	layer 0: nodes × (2M+1) u32 (count, neighbours)
//	upper:   per node with level > 0: level × (M+1) u32
//	crc32 (Castagnoli) u32 of every byte before it
const (
	snapMagic   = "CXVHNSW1"
	snapVersion = 3 // 2 added the codes, 3 the 8-bit storage; versions 1 (float32 only) and 2 are read too
	flagDead    = 1
	flagFreed   = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteTo writes a snapshot of the index. Readers may search meanwhile.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	cw := &countWriter{w: w}
	h := crc32.New(castagnoli)
	e := &enc{w: io.MultiWriter(cw, h), buf: make([]byte, 0, 1<<16)}
	e.bytes([]byte(snapMagic))
	e.u32(snapVersion)
	o := ix.o
	e.u32(uint32(ix.dim))
	e.u8(uint8(o.Metric))
	e.u32(uint32(o.M))
	e.u32(uint32(o.EfConstruction))
	e.u32(uint32(o.EfSearch))
	e.u64(o.Seed)
	e.u32(uint32(o.ExactBelow))
	e.u64(math.Float64bits(o.SwitchCost))
	e.u64(math.Float64bits(o.RepairFraction))
	switch {
	case o.Int8:
		e.u8(3)
	case ix.quant == nil:
		e.u8(0)
	case ix.vecs == nil:
		e.u8(1)
	default:
		e.u8(2)
	}
	if q := ix.quant; q != nil {
		c := q.Config()
		e.u8(uint8(c.Variant))
		e.u8(uint8(c.Bits))
		e.u32(c.Seed)
		e.u32(uint32(o.Overfetch))
		fp := q.Fingerprint()
		e.bytes(fp[:])
	}
	n := len(ix.keys)
	e.u32(uint32(n))
	e.u32(ix.entry)
	e.u32(uint32(ix.maxLevel))
	e.u32(uint32(ix.live))
	e.u32(uint32(ix.tombs))
	e.u64(ix.watermark)
	for i := 0; i < n; i++ {
		e.u64(ix.keys[i])
		e.u8(ix.levels[i])
		var f uint8
		if ix.dead.has(uint32(i)) {
			f |= flagDead
		}
		if ix.freed.has(uint32(i)) {
			f |= flagFreed
		}
		e.u8(f)
	}
	for _, x := range ix.vecs {
		e.u32(math.Float32bits(x))
	}
	e.bytes(ix.codes)
	if o.Int8 {
		e.bytes(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(ix.bytes8))), len(ix.bytes8)))
		for _, x := range ix.scale8 {
			e.u32(math.Float32bits(x))
		}
	}
	for _, x := range ix.links0 {
		e.u32(x)
	}
	for i := 0; i < n; i++ {
		for _, x := range ix.upper[uint32(i)] {
			e.u32(x)
		}
	}
	e.flush()
	if e.err == nil {
		var sum [4]byte
		binary.LittleEndian.PutUint32(sum[:], h.Sum32())
		_, e.err = cw.Write(sum[:])
	}
	return cw.n, e.err
}

// Read loads a snapshot written by WriteTo. Any damage (bad magic or
// version, truncation, a checksum mismatch, an impossible graph) is an
// error wrapping ErrCorrupt; the caller then rebuilds from SQL.
func Read(r io.Reader) (*Index, error) {
	h := crc32.New(castagnoli)
	br := bufio.NewReaderSize(r, 1<<16)
	d := &dec{r: io.TeeReader(br, h)}
	if sz, ok := r.(interface{ Size() int64 }); ok { // an io.SectionReader of a snapshot file
		d.size = sz.Size()
	}
	ix, err := d.index()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	want := h.Sum32()
	var sum [4]byte
	if _, err := io.ReadFull(br, sum[:]); err != nil {
		return nil, fmt.Errorf("%w: missing checksum: %w", ErrCorrupt, err)
	}
	if got := binary.LittleEndian.Uint32(sum[:]); got != want {
		return nil, fmt.Errorf("%w: checksum %08x, want %08x", ErrCorrupt, got, want)
	}
	return ix, nil
}

func (d *dec) index() (*Index, error) {
	if m := d.bytes(len(snapMagic)); d.err == nil && string(m) != snapMagic {
		return nil, errors.New("bad magic")
	}
	version := d.u32()
	if d.err == nil && (version < 1 || version > snapVersion) {
		return nil, fmt.Errorf("unsupported version %d", version)
	}
	dim := int(d.u32())
	var o Options
	o.Metric = Metric(d.u8())
	o.M = int(d.u32())
	o.EfConstruction = int(d.u32())
	o.EfSearch = int(d.u32())
	o.Seed = d.u64()
	o.ExactBelow = int(d.u32())
	o.SwitchCost = math.Float64frombits(d.u64())
	o.RepairFraction = math.Float64frombits(d.u64())
	storage := uint8(0)
	if version >= 2 {
		storage = d.u8()
	}
	if d.err == nil && (storage > 3 || storage == 3 && version < 3) {
		return nil, fmt.Errorf("unknown storage %d", storage)
	}
	o.Int8 = storage == 3
	if storage == 1 || storage == 2 {
		variant, bits, seed := quant.Variant(d.u8()), int(d.u8()), d.u32()
		o.Overfetch = int(d.u32())
		var fp [32]byte
		for i := 0; i < 32; i += 8 {
			binary.LittleEndian.PutUint64(fp[i:], d.u64())
		}
		if d.err != nil {
			return nil, d.err
		}
		if dim < 1 || dim > quant.MaxDim || o.Overfetch < 1 || o.Overfetch > 1<<16 {
			return nil, errors.New("bad options")
		}
		q, err := quant.New(quant.Config{Dim: dim, Bits: bits, Variant: variant, Seed: seed})
		if err != nil {
			return nil, fmt.Errorf("quantizer: %w", err)
		}
		if q.Fingerprint() != fp {
			return nil, errors.New("the quantizer's rotation differs from the snapshot's (fingerprint)")
		}
		o.Quantizer, o.KeepFloat = q, storage == 2
	}
	if d.err != nil {
		return nil, d.err
	}
	if dim < 1 || dim > 65535 || !o.Metric.valid() || o.M < 2 || o.M > 512 || o.EfConstruction < 1 || o.EfSearch < 1 ||
		!(o.SwitchCost > 0 && o.SwitchCost <= 1e6) || !(o.RepairFraction > 0 && o.RepairFraction <= 1) {
		return nil, errors.New("bad options")
	}
	ix := &Index{dim: dim, o: o}
	n := int(d.u32())
	ix.entry = d.u32()
	ix.maxLevel = int(d.u32())
	live := int(d.u32())
	tombs := int(d.u32())
	ix.watermark = d.u64()
	if d.err != nil {
		return nil, d.err
	}
	if n > 1<<30 || ix.maxLevel > maxLevelCap || live+tombs > n {
		return nil, errors.New("bad counts")
	}
	ix.init()
	ix.dead.grow(n)
	ix.freed.grow(n)
	// Slices grow as data arrives (geometrically, toward the counted
	// size), so a lying header cannot make us allocate more than twice
	// what the stream holds. Nodes and arrays are decoded block by block:
	// one call per value cost 0.2 s of CPU at 100k nodes, most of the
	// start-up once the catalogs came from their snapshots (2026-12-03).
	nodes := d.rawInto(nil, n*nodeBytes)
	if d.err == nil {
		ix.keys = make([]uint64, 0, n)
		ix.levels = make([]uint8, 0, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		rec := nodes[i*nodeBytes:]
		key, level, f := binary.LittleEndian.Uint64(rec), rec[8], rec[9]
		if level > maxLevelCap || f > flagDead|flagFreed || f == flagFreed {
			return nil, fmt.Errorf("bad node %d", i)
		}
		ix.keys = append(ix.keys, key)
		ix.levels = append(ix.levels, level)
		id := uint32(i)
		switch {
		case f&flagFreed != 0:
			ix.dead.set(id)
			ix.freed.set(id)
		case f&flagDead != 0:
			ix.dead.set(id)
			ix.tombs++
		default:
			if _, dup := ix.byKey.get(ix.keys, key); dup {
				return nil, fmt.Errorf("duplicate key %d", key)
			}
			ix.byKey.put(ix.keys, id)
			ix.live++
		}
	}
	switch storage {
	case 0, 2:
		ix.vecs = d.f32sInto(nil, n*dim)
	}
	switch storage {
	case 1, 2:
		ix.codes = d.rawInto(nil, n*ix.csize)
	case 3:
		b := d.rawInto(nil, n*dim)
		ix.bytes8 = unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
		ix.scale8 = d.f32sInto(nil, n)
		for _, s := range ix.scale8 {
			if !(s >= 0 && s <= math.MaxFloat32) {
				return nil, errors.New("bad 8-bit scale")
			}
		}
	}
	ix.links0 = d.u32sInto(nil, n*(ix.m0+1))
	ix.upper = map[uint32][]uint32{}
	for i := 0; i < n && d.err == nil; i++ {
		if lv := int(ix.levels[i]); lv > 0 && !ix.freed.has(uint32(i)) {
			ix.upper[uint32(i)] = d.u32sInto(make([]uint32, 0, lv*(o.M+1)), lv*(o.M+1))
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if ix.live != live || ix.tombs != tombs {
		return nil, errors.New("live or tombstone count does not match the nodes")
	}
	for i := n - 1; i >= 0; i-- {
		if ix.freed.has(uint32(i)) {
			ix.free = append(ix.free, uint32(i))
		}
	}
	if err := ix.checkGraph(); err != nil {
		return nil, err
	}
	return ix, nil
}

// checkGraph verifies what searches rely on: a live entry point at the top
// level when anything is live, neighbour lists within capacity that name
// existing, non-free nodes of a high enough level.
func (ix *Index) checkGraph() error {
	n := len(ix.keys)
	if ix.live+ix.tombs == 0 {
		if ix.entry != noNode {
			return errors.New("entry point in an empty graph")
		}
		return nil
	}
	if ix.entry >= uint32(n) || ix.freed.has(ix.entry) || int(ix.levels[ix.entry]) != ix.maxLevel {
		return errors.New("bad entry point")
	}
	for i := 0; i < n; i++ {
		u := uint32(i)
		if ix.freed.has(u) {
			continue
		}
		for l := 0; l <= int(ix.levels[u]); l++ {
			var cnt uint32
			if l == 0 {
				cnt = ix.links0[i*(ix.m0+1)]
			} else {
				cnt = ix.upper[u][(l-1)*(ix.o.M+1)]
			}
			if int(cnt) > ix.capacity(l) {
				return fmt.Errorf("node %d layer %d has %d neighbours", i, l, cnt)
			}
			for _, x := range ix.neighbours(u, l) {
				if x >= uint32(n) || ix.freed.has(x) || int(ix.levels[x]) < l || x == u {
					return fmt.Errorf("node %d layer %d links to bad node %d", i, l, x)
				}
			}
		}
	}
	return nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// enc buffers writes itself, so the checksum sees large blocks.
type enc struct {
	w   io.Writer
	buf []byte
	err error
}

func (e *enc) flush() {
	if e.err == nil && len(e.buf) > 0 {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

func (e *enc) room(n int) {
	if len(e.buf)+n > cap(e.buf) {
		e.flush()
	}
}
func (e *enc) bytes(p []byte) { e.room(len(p)); e.buf = append(e.buf, p...) }
func (e *enc) u8(x uint8)     { e.room(1); e.buf = append(e.buf, x) }
func (e *enc) u32(x uint32)   { e.room(4); e.buf = binary.LittleEndian.AppendUint32(e.buf, x) }
func (e *enc) u64(x uint64)   { e.room(8); e.buf = binary.LittleEndian.AppendUint64(e.buf, x) }

type dec struct {
	r   io.Reader
	buf [8]byte
	blk []byte // block's scratch
	err error
	// size is the stream's length when known (0 when not): an array the
	// stream can hold is allocated at once (presize).
	size int64
}

// presize returns dst with room for n more elements of elem bytes when
// the stream is long enough to hold them, so a snapshot's arrays are
// allocated once instead of doubling from readBlock: at 1M entries the
// doublings of the 400 MB of vectors (copies, and fresh pages faulted in
// for each) were 2.4 of vector.Read's 3.2 s of CPU at start-up. A stream
// of unknown length keeps readRoom's doubling, so a corrupt header never
// allocates more than what the stream delivered, twice; a known length
// bounds each array by the stream's size.
func presize[T any](d *dec, dst []T, n, elem int) []T {
	if d.size <= 0 || n <= 0 || int64(n) > d.size/int64(elem) {
		return dst
	}
	return slices.Grow(dst, n)
}

func (d *dec) bytes(n int) []byte {
	if d.err != nil {
		return d.buf[:n]
	}
	_, d.err = io.ReadFull(d.r, d.buf[:n])
	return d.buf[:n]
}

// nodeBytes is one node record: key u64, level u8, flags u8.
const nodeBytes = 10

// readBlock is the most read into a slice before it grows again.
const readBlock = 1 << 16

// readRoom returns s with room for k more elements: capacity doubles, but
// never past want elements in all, so a slice filled from a stream is
// never more than twice as large as what the stream delivered.
func readRoom[T any](s []T, k, want int) []T {
	if cap(s)-len(s) >= k {
		return s
	}
	c := min(max(2*cap(s), len(s)+k, readBlock), max(want, len(s)+k))
	return slices.Grow(s, c-len(s))
}

// rawInto appends n bytes of the stream to dst.
func (d *dec) rawInto(dst []byte, n int) []byte {
	dst = presize(d, dst, n, 1)
	want := len(dst) + n
	for n > 0 && d.err == nil {
		k := min(n, readBlock)
		dst = readRoom(dst, k, want)
		at := len(dst)
		dst = dst[:at+k]
		if _, d.err = io.ReadFull(d.r, dst[at:]); d.err != nil {
			return dst[:at]
		}
		n -= k
	}
	return dst
}

// block reads the next n bytes (at most readBlock) into the decoder's
// scratch block.
func (d *dec) block(n int) []byte {
	if d.blk == nil {
		d.blk = make([]byte, readBlock)
	}
	_, d.err = io.ReadFull(d.r, d.blk[:n])
	return d.blk[:n]
}

// u32sInto appends n little-endian u32 values of the stream to dst. It
// and f32sInto are written out twice on purpose: a shared generic with a
// conversion func makes a call per value over the 10 million of a 100k
// graph's vectors, on the start-up path.
func (d *dec) u32sInto(dst []uint32, n int) []uint32 {
	dst = presize(d, dst, n, 4)
	want := len(dst) + n
	for n > 0 && d.err == nil {
		k := min(n, readBlock/4)
		block := d.block(4 * k)
		if d.err != nil {
			return dst
		}
		dst = readRoom(dst, k, want)
		for i := range k {
			dst = append(dst, binary.LittleEndian.Uint32(block[4*i:]))
		}
		n -= k
	}
	return dst
}

// f32sInto appends n little-endian float32 values of the stream to dst.
func (d *dec) f32sInto(dst []float32, n int) []float32 {
	dst = presize(d, dst, n, 4)
	want := len(dst) + n
	for n > 0 && d.err == nil {
		k := min(n, readBlock/4)
		block := d.block(4 * k)
		if d.err != nil {
			return dst
		}
		dst = readRoom(dst, k, want)
		for i := range k {
			dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(block[4*i:])))
		}
		n -= k
	}
	return dst
}

func (d *dec) u8() uint8   { return d.bytes(1)[0] }
func (d *dec) u32() uint32 { return binary.LittleEndian.Uint32(d.bytes(4)) }
func (d *dec) u64() uint64 { return binary.LittleEndian.Uint64(d.bytes(8)) }
