package search

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"

	"github.com/contextd/contextd/index/catalog"
	"github.com/contextd/contextd/index/snapfmt"
)

// The snapshot of search_context's catalog (pagecat.go). At 100,000
// entries the rebuild from SQL reads every entry's access fields and
// metadata (about 1.3 s on the 2-core machine), the snapshot decodes in
// about 60 ms (catalog.BenchmarkDecode), so start-up stays within its
// 1 s target.
//
// It lives in the in-process index's folder (FullTextOptions.Dir) beside
// that index's own catalog.snap, under another name: the in-process
// catalog also holds the BM25 text lengths, which this one does not, so
// neither backend may read the other's. Switching SEARCH_BACKEND on one
// database is then safe by the marks: each snapshot resumes from the row
// it names and replays every write the other backend made since, or is
// rebuilt when that row is not this store's (TestPageCatalogBackendSwitch).
//
// Format: magic "CXPGCAT1"; the mark (seq uvarint, entry length uvarint,
// bytes); crc32 (Castagnoli) u32 of the bytes before it; catalog.Encode's
// bytes (their own checksum) to the end.

const (
	pageCatalogFile  = "pagecat.snap"
	pageCatalogMagic = "CXPGCAT1"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// save writes the snapshot atomically (snapfmt.WriteFile), with the Mark
// of the watermark the catalog is at.
func (pc *pageCatalog) save(ctx context.Context) error {
	if pc.path == "" {
		return nil
	}
	pc.mu.Lock() // no Apply meanwhile: the catalog is at wm
	wm := pc.wm
	data := pc.cat.Encode(nil)
	pc.changed.Store(0)
	pc.lastSave = time.Now()
	pc.mu.Unlock()
	m, err := snapfmt.MarkAt(ctx, pc.st, wm)
	if err == nil {
		err = snapfmt.WriteFile(pc.path, 0o644, func(w io.Writer) error {
			_, err := w.Write(pageCatalogHeader(m))
			if err == nil {
				_, err = w.Write(data)
			}
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("search_context catalog: snapshot: %w", err)
	}
	return nil
}

func pageCatalogHeader(m snapfmt.Mark) []byte {
	b := append([]byte(nil), pageCatalogMagic...)
	b = binary.AppendUvarint(b, uint64(m.Seq))
	b = binary.AppendUvarint(b, uint64(len(m.Entry)))
	b = append(b, m.Entry...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// readPageCatalog reads the snapshot at path: the catalog and its Mark,
// or why it cannot be used (missing, unreadable, corrupt).
func readPageCatalog(path string) (*catalog.Catalog, snapfmt.Mark, string) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, snapfmt.Mark{}, "no snapshot"
	case err != nil:
		return nil, snapfmt.Mark{}, fmt.Sprintf("snapshot unreadable (%v)", err)
	}
	m, rest, ok := parsePageCatalogHeader(data)
	if !ok {
		return nil, snapfmt.Mark{}, "snapshot header is corrupt"
	}
	cat, err := catalog.Decode(rest)
	if err != nil {
		return nil, snapfmt.Mark{}, fmt.Sprintf("snapshot unusable (%v)", err)
	}
	if !cat.Counts() { // get_statistics reads this catalog
		return nil, snapfmt.Mark{}, "snapshot predates the statistics counts"
	}
	return cat, m, ""
}

// parsePageCatalogHeader splits a snapshot into its Mark and the
// catalog's bytes; ok is false when the header is not intact.
func parsePageCatalogHeader(data []byte) (snapfmt.Mark, []byte, bool) {
	if len(data) < len(pageCatalogMagic) || string(data[:len(pageCatalogMagic)]) != pageCatalogMagic {
		return snapfmt.Mark{}, nil, false
	}
	b := data[len(pageCatalogMagic):]
	seq, n := binary.Uvarint(b)
	if n <= 0 || seq > 1<<62 {
		return snapfmt.Mark{}, nil, false
	}
	b = b[n:]
	l, n := binary.Uvarint(b)
	if n <= 0 || l > uint64(len(b)-n) {
		return snapfmt.Mark{}, nil, false
	}
	entry := string(b[n : n+int(l)])
	b = b[n+int(l):]
	end := len(data) - len(b)
	if len(b) < 4 || binary.LittleEndian.Uint32(b) != crc32.Checksum(data[:end], castagnoli) {
		return snapfmt.Mark{}, nil, false
	}
	return snapfmt.Mark{Seq: int64(seq), Entry: entry}, b[4:], true
}
