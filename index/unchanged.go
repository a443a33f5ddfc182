package index

import (
	"encoding/binary"
	"hash/maphash"
	"math"
)

// The follower re-reads an entry whole after any change to it, and Apply
// used to index it again whole: a knowledge document's entry changes
// status twice after its upload (Processing, then Ready, in its
// metadata, which Bleve does not hold), so each 1 MB document could be
// analysed three times, and the full-text index was still indexing 30 s
// and more after a bulk_upload of 100 such files was Ready, holding the
// texts it had read and its analysis all that time (a heap profile 77 s
// after Ready: 57 MB of entry texts and 85 MB of analysis in flight).
//
// Apply therefore remembers, for each indexed text of at least
// fingerprintMin bytes, a fingerprint of everything its Bleve document
// is made of (docFields), and does not index again an upsert whose
// fingerprint is unchanged: the catalog (metadata, statistics) is still
// updated. Small texts are not tracked: indexing them again costs little,
// and a fingerprint (about 100 bytes with its map entry) per note would
// grow with the number of entries; tracked texts cost at most 100 bytes
// per 64 KiB. The memory is the process's only: a reopened index has
// none, and indexes the next change of every text again, as before.
const fingerprintMin = 64 << 10

// fingerprints are the tracked texts' fingerprints by entry id; a map
// guarded by Index.mu (Apply and Reset).
type fingerprints struct {
	seed maphash.Seed
	byID map[string]uint64
}

// of returns d's fingerprint and whether d's text is long enough to track.
func (f *fingerprints) of(d *Doc) (uint64, bool) {
	if len(d.Text) < fingerprintMin {
		return 0, false
	}
	if f.byID == nil {
		f.seed, f.byID = maphash.MakeSeed(), map[string]uint64{}
	}
	var h maphash.Hash
	h.SetSeed(f.seed)
	str := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		_, _ = h.Write(n[:])
		_, _ = h.WriteString(s)
	}
	num := func(v uint64) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], v)
		_, _ = h.Write(n[:])
	}
	// Every input of docFields, each length-prefixed so that no two
	// documents hash the same sequence of bytes.
	str(d.Text)
	str(d.Owner)
	if d.Public {
		num(1)
	} else {
		num(0)
	}
	num(uint64(len(d.Readers)))
	for _, r := range d.Readers {
		str(r)
	}
	str(d.ThreadID)
	str(d.Source)
	str(d.ContentType)
	num(uint64(len(d.Tags)))
	for _, t := range d.Tags {
		str(t)
	}
	num(math.Float64bits(float64(d.CreatedAt.UnixMicro())))
	return h.Sum64(), true
}

// unchanged reports whether d is indexed exactly as it would be indexed
// now.
func (f *fingerprints) unchanged(d *Doc) bool {
	fp, ok := f.of(d)
	if !ok {
		return false
	}
	old, had := f.byID[d.ID]
	return had && old == fp
}

// indexed records the documents of a group Bleve has just applied, and
// forgets deleted ones.
func (f *fingerprints) indexed(group []Doc, deletes []string) {
	for _, id := range deletes {
		delete(f.byID, id)
	}
	for i := range group {
		if fp, ok := f.of(&group[i]); ok {
			f.byID[group[i].ID] = fp
		} else {
			delete(f.byID, group[i].ID) // a text now too short to track
		}
	}
}

// reset forgets every fingerprint (the index was emptied).
func (f *fingerprints) reset() { f.byID = nil }
