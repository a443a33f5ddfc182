package catalog

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
)

// Metadata columns. search_context's metadata conditions (every operator
// of metadata_filters, on indexed and non-indexed fields alike) are
// answered from a compact column store of the metadata values: one column
// per key path, holding per ordinal the JSON type of the value there and
// its value in 8 bytes (an int64, a float64's bits, or the id of a string
// in the column's dictionary). A condition is then a scan of one column
// (about 1 ns per live entry) or of the candidates already allowed,
// whichever is smaller, instead of json_extract over every row (600-800
// ms for a rare match at 100k entries in SQLite).
//
// A column starts sparse (a map from ordinal to cell: a key a few entries
// hold costs those entries only) and turns dense (two flat slices indexed
// by ordinal, 9 bytes per slot) once a quarter of the slots hold the key.
// The bench's metadata ({status, priority, seq}) costs 27 bytes per entry
// in dense columns plus the dictionaries (BenchmarkCatalogMemory).
//
// The result must equal SQL's (SQLite's json_type, json_extract, lower,
// instr and substr on the stored JSON text). Values whose SQL treatment
// the store does not model exactly are not stored: an entry whose
// metadata holds a NUL character, an integer outside int64, a duplicate
// key, deeper nesting than maxDepth or more than maxCells values counts
// as unserved, and while any live entry is unserved, metadata conditions
// are not served from the catalog (MetaServed is false; the caller asks
// SQL).

// JSON types of a cell, as json_type() names them; kAbsent (the zero
// value) is a path the entry does not hold.
const (
	kAbsent uint8 = iota
	kNull
	kText
	kInt
	kReal
	kTrue
	kFalse
	kArray
	kObject
)

// Limits of what one entry's metadata may hold to be served.
const (
	maxDepth = 8
	maxCells = 256
)

// cell is one value: its kind and 8 bytes (int64, float64 bits or a
// dictionary id).
type cell struct {
	kind uint8
	v    uint64
}

// elem is one element of an array value (array_contains): scalars only,
// strings by value.
type elem struct {
	kind uint8
	v    uint64
	s    string
}

// column is the values of one key path.
type column struct {
	n      int             // ordinals holding a value
	sparse map[uint32]cell // until dense
	kinds  []uint8         // dense: per ordinal
	vals   []uint64
	dict   map[string]uint32 // string value -> id
	strs   []string          // id -> value
	refs   []uint32          // id -> holders
	free   []uint32          // ids to reuse
	arrays map[uint32][]elem // the elements of array cells
}

func (c *column) get(ord uint32) cell {
	if c.sparse != nil {
		return c.sparse[ord]
	}
	if int(ord) < len(c.kinds) {
		return cell{c.kinds[ord], c.vals[ord]}
	}
	return cell{}
}

func (c *column) intern(s string) uint64 {
	if id, ok := c.dict[s]; ok {
		c.refs[id]++
		return uint64(id)
	}
	var id uint32
	if n := len(c.free); n > 0 {
		id = c.free[n-1]
		c.free = c.free[:n-1]
		c.strs[id], c.refs[id] = s, 1
	} else {
		id = uint32(len(c.strs))
		c.strs = append(c.strs, s)
		c.refs = append(c.refs, 1)
	}
	if c.dict == nil {
		c.dict = map[string]uint32{}
	}
	c.dict[s] = id
	return uint64(id)
}

func (c *column) release(id uint64) {
	if c.refs[id]--; c.refs[id] == 0 {
		delete(c.dict, c.strs[id])
		c.strs[id] = ""
		c.free = append(c.free, uint32(id))
	}
}

// set stores x (kText cells carry their string in s) at ord, which holds
// nothing in this column; slots is the catalog's ordinal count.
func (c *column) set(ord uint32, x elem, arr []elem, slots int) {
	v := x.v
	if x.kind == kText {
		v = c.intern(x.s)
	}
	if x.kind == kArray {
		if c.arrays == nil {
			c.arrays = map[uint32][]elem{}
		}
		c.arrays[ord] = arr
	}
	c.n++
	if c.sparse == nil && c.kinds == nil {
		c.sparse = map[uint32]cell{}
	}
	if c.sparse != nil && c.n*4 >= slots && slots >= 64 {
		c.kinds = make([]uint8, slots)
		c.vals = make([]uint64, slots)
		for o, cl := range c.sparse {
			c.kinds[o], c.vals[o] = cl.kind, cl.v
		}
		c.sparse = nil
	}
	if c.sparse != nil {
		c.sparse[ord] = cell{x.kind, v}
		return
	}
	if int(ord) >= len(c.kinds) {
		n := max(int(ord)+1, slots)
		c.kinds = append(c.kinds, make([]uint8, n-len(c.kinds))...)
		c.vals = append(c.vals, make([]uint64, n-len(c.vals))...)
	}
	c.kinds[ord], c.vals[ord] = x.kind, v
}

// unset removes ord's value; false when it held none.
func (c *column) unset(ord uint32) bool {
	cl := c.get(ord)
	if cl.kind == kAbsent {
		return false
	}
	if cl.kind == kText {
		c.release(cl.v)
	}
	if cl.kind == kArray {
		delete(c.arrays, ord)
	}
	if c.sparse != nil {
		delete(c.sparse, ord)
	} else {
		c.kinds[ord], c.vals[ord] = kAbsent, 0
	}
	c.n--
	return true
}

// pathKey joins path segments into a column key (segments hold no NUL:
// an entry whose keys do is unserved).
func pathKey(path []string) string { return strings.Join(path, "\x00") }

// flatCell is one value of an entry's metadata at a key path.
type flatCell struct {
	key string
	x   elem
	arr []elem
}

// flatten lists every value of a metadata object by key path (objects
// and arrays themselves included, for json_type); ok is false when the
// metadata is not one the store models exactly (see the file comment).
// nil or JSON null metadata holds nothing.
func flatten(meta []byte) (cells []flatCell, ok bool) {
	meta = bytes.TrimSpace(meta)
	if len(meta) == 0 || string(meta) == "null" {
		return nil, true
	}
	if bytes.IndexByte(meta, 0) >= 0 || bytes.Contains(meta, []byte(`\u0000`)) {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(meta))
	d.UseNumber()
	t, err := d.Token()
	if err != nil || t != json.Delim('{') {
		return nil, false
	}
	f := flattener{d: d}
	if !f.object(nil) {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return f.out, true
}

type flattener struct {
	d   *json.Decoder
	out []flatCell
}

// object reads the members of an object whose '{' was read, at path.
func (f *flattener) object(path []string) bool {
	if len(path) >= maxDepth {
		return false
	}
	seen := map[string]bool{}
	for {
		t, err := f.d.Token()
		if err != nil {
			return false
		}
		if t == json.Delim('}') {
			return true
		}
		k, isKey := t.(string)
		if !isKey || seen[k] || len(f.out) >= maxCells {
			return false
		}
		seen[k] = true
		p := append(path[:len(path):len(path)], k)
		if !f.value(p) {
			return false
		}
	}
}

// value reads one value at path.
func (f *flattener) value(path []string) bool {
	t, err := f.d.Token()
	if err != nil {
		return false
	}
	key := pathKey(path)
	switch t {
	case json.Delim('{'):
		f.out = append(f.out, flatCell{key: key, x: elem{kind: kObject}})
		return f.object(path)
	case json.Delim('['):
		at := len(f.out)
		f.out = append(f.out, flatCell{key: key, x: elem{kind: kArray}})
		arr := []elem{}
		for f.d.More() {
			x, ok := f.element()
			if !ok || len(arr) >= maxCells {
				return false
			}
			arr = append(arr, x)
		}
		if t, err := f.d.Token(); err != nil || t != json.Delim(']') {
			return false
		}
		f.out[at].arr = arr
		return true
	}
	x, ok := scalar(t)
	if !ok {
		return false
	}
	f.out = append(f.out, flatCell{key: key, x: x})
	return true
}

// element reads one array element: nested arrays and objects are kept
// by kind only (array_contains compares scalars).
func (f *flattener) element() (elem, bool) {
	t, err := f.d.Token()
	if err != nil {
		return elem{}, false
	}
	switch t {
	case json.Delim('{'), json.Delim('['):
		kind := kObject
		if t == json.Delim('[') {
			kind = kArray
		}
		for depth := 1; depth > 0; {
			t, err := f.d.Token()
			if err != nil {
				return elem{}, false
			}
			switch t {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
		}
		return elem{kind: kind}, true
	}
	return scalar(t)
}

// scalar is a JSON scalar token as a cell: integers as SQLite reads them
// (a literal without fraction or exponent inside int64), the rest real.
func scalar(t json.Token) (elem, bool) {
	switch x := t.(type) {
	case nil:
		return elem{kind: kNull}, true
	case bool:
		if x {
			return elem{kind: kTrue}, true
		}
		return elem{kind: kFalse}, true
	case string:
		return elem{kind: kText, s: x}, true
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			i, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return elem{}, false // beyond int64: SQLite's own rules
			}
			return elem{kind: kInt, v: uint64(i)}, true
		}
		fl, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return elem{}, false
		}
		return elem{kind: kReal, v: floatBits(fl)}, true
	}
	return elem{}, false
}

// putMeta stores the metadata of the fresh slot ord.
func (c *Catalog) putMeta(ord uint32, meta []byte) {
	cells, ok := flatten(meta)
	if !ok {
		c.slots[ord].unserved = true
		c.unserved++
		return
	}
	for _, fc := range cells {
		col := c.meta[fc.key]
		if col == nil {
			col = &column{}
			c.meta[fc.key] = col
		}
		col.set(ord, fc.x, fc.arr, len(c.slots))
	}
}

// clearMeta drops ord's metadata from every column (a column nobody
// holds any more goes, so keys that left cost nothing).
func (c *Catalog) clearMeta(ord uint32) {
	if c.slots[ord].unserved {
		c.slots[ord].unserved = false
		c.unserved--
	}
	for k, col := range c.meta {
		if col.unset(ord) && col.n == 0 {
			delete(c.meta, k)
		}
	}
}

// MetaServed reports whether metadata conditions can be answered from
// the catalog: it keeps metadata (NewMeta) and every live entry's
// metadata is in its columns.
func (c *Catalog) MetaServed() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.meta != nil && c.unserved == 0
}
