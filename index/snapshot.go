package index

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/contextd/contextd/index/snapfmt"
)

// snapshotFormat is the format header of the snapshot. A snapshot of
// another format (a different mapping or document shape) is rebuilt.
const snapshotFormat = "contextd-fts/2"

// errLocked: another process holds the snapshot open.
var errLocked = errors.New("index snapshot is locked by another process")

// snapMeta is the header file beside the Bleve data. Clean is true only
// after a clean Close: then Checksum covers every data file and is checked
// on the next open. While open, Clean is false and the Bleve data stands
// for itself (scorch writes each batch atomically, with the watermark).
type snapMeta struct {
	Format    string `json:"format"`
	Language  string `json:"language"`
	Analyzer  string `json:"analyzer,omitempty"` // AnalyzerVersion; "" before version 2
	Watermark int64  `json:"watermark"`
	Clean     bool   `json:"clean"`
	Checksum  string `json:"checksum,omitempty"`
}

// snapshot is an index kept in Dir: fts.bleve (scorch) and fts.json.
type snapshot struct {
	data, meta, lang string
}

func openSnapshot(dir, lang string, m mapping.IndexMapping, lockTimeout time.Duration) (*snapshot, bleve.Index, bool, string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, false, "", fmt.Errorf("index: create %s: %w", dir, err)
	}
	s := &snapshot{data: filepath.Join(dir, "fts.bleve"), meta: filepath.Join(dir, "fts.json"), lang: lang}
	note := ""
	raw, err := os.ReadFile(s.meta)
	var meta snapMeta
	switch {
	case errors.Is(err, os.ErrNotExist):
		note = "no snapshot at " + dir
	case err != nil:
		note = fmt.Sprintf("snapshot header unreadable (%v)", err)
	case json.Unmarshal(raw, &meta) != nil:
		note = "snapshot header is corrupt"
	case meta.Format != snapshotFormat:
		note = fmt.Sprintf("snapshot format %q is not %q", meta.Format, snapshotFormat)
	case meta.Language != lang:
		note = fmt.Sprintf("FTS_LANGUAGE changed from %s to %s", meta.Language, lang)
	case meta.Analyzer != AnalyzerVersion:
		note = fmt.Sprintf("the index analyzer changed from %s to %s (words split and folded as SQLite FTS5 unicode61 does)", analyzerLabel(meta.Analyzer), AnalyzerVersion)
	case meta.Clean:
		sum, err := checksumDir(s.data, meta.Checksum)
		if err != nil || sum != meta.Checksum {
			note = "snapshot checksum does not match its data (corrupt)"
		}
	}
	if note == "" {
		bi, err := bleve.OpenUsing(s.data, map[string]any{"bolt_timeout": lockTimeout.String()})
		if err == nil {
			if err := s.writeMeta(snapMeta{Format: snapshotFormat, Language: lang, Analyzer: AnalyzerVersion, Watermark: meta.Watermark}); err != nil {
				_ = bi.Close()
				return nil, nil, false, "", err
			}
			return s, bi, false, "", nil
		}
		if strings.Contains(err.Error(), "timeout") {
			return nil, nil, false, "", errLocked
		}
		note = fmt.Sprintf("snapshot cannot be opened (%v)", err)
	}
	bi, err := s.recreate(m)
	if err != nil {
		if strings.Contains(err.Error(), "timeout") {
			return nil, nil, false, "", errLocked
		}
		return nil, nil, false, "", err
	}
	return s, bi, true, note, nil
}

// analyzerLabel names a snapshot's analyzer version for the progress note.
func analyzerLabel(v string) string {
	if v == "" {
		return "unicode/1 (Bleve's word tokenizer)"
	}
	return v
}

// recreate replaces the data with a new empty index.
func (s *snapshot) recreate(m mapping.IndexMapping) (bleve.Index, error) {
	if err := removeAll(s.data); err != nil {
		return nil, fmt.Errorf("index: remove old snapshot: %w", err)
	}
	if err := s.removeCatalog(); err != nil {
		return nil, err
	}
	bi, err := bleve.NewUsing(s.data, m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("index: create snapshot: %w", err)
	}
	if err := s.writeMeta(snapMeta{Format: snapshotFormat, Language: s.lang, Analyzer: AnalyzerVersion}); err != nil {
		_ = bi.Close()
		return nil, err
	}
	return bi, nil
}

// seal records a clean close: the watermark and the data checksum.
func (s *snapshot) seal(watermark int64) error {
	sum, err := checksumDir(s.data, crcPrefix)
	if err != nil {
		return fmt.Errorf("index: checksum snapshot: %w", err)
	}
	return s.writeMeta(snapMeta{Format: snapshotFormat, Language: s.lang, Analyzer: AnalyzerVersion, Watermark: watermark, Clean: true, Checksum: sum})
}

func (s *snapshot) writeMeta(m snapMeta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("index: encode snapshot header: %w", err)
	}
	err = snapfmt.WriteFile(s.meta, 0o644, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
	if err != nil {
		return fmt.Errorf("index: write snapshot header: %w", err)
	}
	return nil
}

// crcPrefix marks a checksum of checksumDir as CRC-32C (Castagnoli).
const crcPrefix = "crc32c:"

// checksumDir is the checksum of every file under dir: relative path,
// size and content, in path order. It is CRC-32C, written "crc32c:"
// and eight hex digits, and SHA-256 in hex when like names a bare hex
// digest (the snapshots sealed before 2026-12-05 are checked as they
// were written). The checksum guards against a torn or damaged file,
// not an adversary: CRC-32C runs in hardware at memory speed, where
// SHA-256 of the 706 MB of a 1M-entry index took 0.44 s of CPU at every
// start and every clean close.
func checksumDir(dir, like string) (string, error) {
	legacy := !strings.HasPrefix(like, crcPrefix)
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	var h hash.Hash = crc32.New(crc32.MakeTable(crc32.Castagnoli))
	if legacy {
		h = sha256.New()
	}
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), fi.Size())
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	if legacy {
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	return crcPrefix + hex.EncodeToString(h.Sum(nil)), nil
}
