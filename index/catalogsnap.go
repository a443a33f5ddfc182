package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/contextd/contextd/index/catalog"
	"github.com/contextd/contextd/index/snapfmt"
)

// The catalog snapshot. Bleve's snapshot holds the documents, not the
// catalog (the access and filter bitmaps of the prefilter, and the text
// lengths BM25 needs per readable set): an index opened from its snapshot
// loaded the catalog from a full SQL scan (1.3 s at 100k entries, then
// the lengths from every stored document at the first search). Now the
// catalog is written beside the Bleve data (catalog.snap) on close and
// from time to time, with the change-log Mark of the watermark it covers,
// and read back at start-up. It may be older than the Bleve data (written
// before the last batches, or the process was killed): the follower then
// resumes from the older of the two watermarks, and re-applying rows is
// idempotent for both.
//
// Format: magic "CXFTSCT1"; language and analyzer version (length
// uvarint, bytes each); the mark (seq uvarint, entry length uvarint,
// bytes); catalog.Encode's bytes (their own checksum) to the end.

const (
	catalogFile  = "catalog.snap"
	catalogMagic = "CXFTSCT1"
)

// CatalogSnapshot returns the watermark the index has applied up to and
// its catalog's snapshot at that watermark. An index whose catalog lacks
// the text lengths (loaded from SQL) fills them first.
func (ix *Index) CatalogSnapshot() (int64, []byte, error) {
	ix.mu.Lock() // no Apply meanwhile: the catalog is at the watermark
	defer ix.mu.Unlock()
	if ix.bi == nil {
		return 0, nil, errors.New("index: closed")
	}
	if err := ix.fillLengthsNow(); err != nil {
		return 0, nil, err
	}
	wm, err := ix.watermark()
	if err != nil {
		return 0, nil, err
	}
	return wm, ix.cat.Encode(nil), nil
}

// fillLengthsNow fills stale text lengths from the index (stats.go).
func (ix *Index) fillLengthsNow() error {
	ix.lensMu.Lock()
	stale := ix.lensStale
	ix.lensMu.Unlock()
	if !stale {
		return nil
	}
	adv, err := ix.bi.Advanced()
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	defer r.Close()
	return ix.fillLengths(r)
}

// SaveCatalog writes a catalog snapshot taken by CatalogSnapshot, with
// the Mark of its watermark, atomically (snapfmt.WriteFile). An index kept
// in memory has nowhere to write it.
func (ix *Index) SaveCatalog(m snapfmt.Mark, data []byte) error {
	if ix.snap == nil {
		return nil
	}
	err := snapfmt.WriteFile(ix.snap.catalogPath(), 0o644, func(w io.Writer) error {
		_, err := w.Write(ix.catalogHeader(nil, m))
		if err == nil {
			_, err = w.Write(data)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("index: write catalog snapshot: %w", err)
	}
	return nil
}

func (s *snapshot) catalogPath() string { return filepath.Join(filepath.Dir(s.data), catalogFile) }

func (ix *Index) catalogHeader(buf []byte, m snapfmt.Mark) []byte {
	buf = append(buf, catalogMagic...)
	for _, v := range []string{ix.lang, AnalyzerVersion} {
		buf = binary.AppendUvarint(buf, uint64(len(v)))
		buf = append(buf, v...)
	}
	buf = binary.AppendUvarint(buf, uint64(m.Seq))
	buf = binary.AppendUvarint(buf, uint64(len(m.Entry)))
	return append(buf, m.Entry...)
}

// OpenCatalog replaces the catalog with the one saved beside the
// snapshot, when there is one of this language and analyzer, intact, and
// check accepts its Mark (a row of this store's change log: Mark.Check).
// It returns the catalog's watermark, or why it was not used ("" when it
// was); an error is check's.
func (ix *Index) OpenCatalog(check func(snapfmt.Mark) (string, error)) (int64, string, error) {
	if ix.snap == nil {
		return 0, "no catalog snapshot in memory", nil
	}
	data, err := os.ReadFile(ix.snap.catalogPath())
	switch {
	case errors.Is(err, os.ErrNotExist):
		return 0, "no catalog snapshot", nil
	case err != nil:
		return 0, fmt.Sprintf("catalog snapshot unreadable (%v)", err), nil
	}
	m, rest, why := ix.parseCatalogHeader(data)
	if why != "" {
		return 0, why, nil
	}
	cat, err := catalog.Decode(rest)
	if err != nil {
		return 0, fmt.Sprintf("catalog snapshot unusable (%v)", err), nil
	}
	if !cat.Counts() { // get_statistics reads this catalog
		return 0, "catalog snapshot predates the statistics counts", nil
	}
	if why, err := check(m); err != nil || why != "" {
		return 0, why, err
	}
	ix.view.Lock()
	defer ix.view.Unlock()
	ix.cat.Replace(cat)
	ix.ords.reset() // arrays built before the load mapped these ids to nothing
	ix.lensMu.Lock()
	ix.lensStale = false
	ix.lensMu.Unlock()
	return m.Seq, "", nil
}

// parseCatalogHeader reads the header of a catalog snapshot: its Mark and
// the catalog's bytes, or why it does not fit this index.
func (ix *Index) parseCatalogHeader(data []byte) (snapfmt.Mark, []byte, string) {
	const corrupt = "catalog snapshot header is corrupt"
	if len(data) < len(catalogMagic) || string(data[:len(catalogMagic)]) != catalogMagic {
		return snapfmt.Mark{}, nil, corrupt
	}
	b := data[len(catalogMagic):]
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	str := func() (string, bool) {
		n, ok := next()
		if !ok || n > uint64(len(b)) {
			return "", false
		}
		s := string(b[:n])
		b = b[n:]
		return s, true
	}
	lang, ok1 := str()
	analyzer, ok2 := str()
	seq, ok3 := next()
	entry, ok4 := str()
	switch {
	case !ok1 || !ok2 || !ok3 || !ok4 || seq > 1<<62:
		return snapfmt.Mark{}, nil, corrupt
	case lang != ix.lang || analyzer != AnalyzerVersion:
		return snapfmt.Mark{}, nil, fmt.Sprintf("catalog snapshot of %s/%s, the index is %s/%s", lang, analyzer, ix.lang, AnalyzerVersion)
	}
	return snapfmt.Mark{Seq: int64(seq), Entry: entry}, b, ""
}

// removeCatalog drops the catalog snapshot of a recreated index: its
// lengths were counted by another analyzer, or its entries belong to
// another database.
func (s *snapshot) removeCatalog() error {
	if err := removeAll(s.catalogPath()); err != nil {
		return fmt.Errorf("index: remove catalog snapshot: %w", err)
	}
	return nil
}
