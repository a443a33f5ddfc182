package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/extract"
	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/syncplan"
)

// Doc is one extracted document, ready to plan and to store.
type Doc struct {
	File
	Text string
	// Meta is the entry metadata without the ingest block: the document
	// block {path, format, title, ...} that search filters can use.
	Meta       map[string]any
	TextDigest string // SHA-256 hex of Text (what the server stores as content_hash)
	MetaDigest string // SHA-256 hex of Meta, tags, visibility and source
	// lazy marks digests taken from the Cache: Text is not loaded, and a
	// write extracts the file first.
	lazy bool
}

// Settings are what every entry of a corpus carries besides its document.
type Settings struct {
	Tags       []string
	Visibility string // "" leaves the server's default
}

// Digest returns the SHA-256 hex digest of a text as the server computes
// content_hash: over the text with surrounding whitespace removed the way
// the server removes it (Python's str.strip, which also strips the
// separators U+001C..U+001F that Go's TrimSpace keeps). Any other strip
// would plan a text update for such a document on every run.
func Digest(text string) string {
	return request.ContentHash(pyfmt.Strip(text))
}

// metaDigest covers everything the client writes besides the text and the
// block itself, so a change of title, tags or visibility plans a metadata
// update. encoding/json sorts map keys, which makes the encoding
// canonical; "v" versions the recipe.
func metaDigest(meta map[string]any, s Settings) string {
	b, _ := json.Marshal(map[string]any{"v": 1, "metadata": meta, "tags": s.Tags, "visibility": s.Visibility, "source": "agent"})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// errNoText marks a document whose extraction yields no text: there is
// nothing to store, and what is stored for it is kept.
var errNoText = errors.New("no extractable text")

// load extracts one file and computes its digests.
func load(ctx context.Context, f File, s Settings, opt extract.Options) (*Doc, error) {
	d, err := extract.File(ctx, f.Path, opt)
	if err != nil {
		return nil, err
	}
	text := pyfmt.Strip(d.Text)
	if text == "" {
		return nil, errNoText
	}
	meta := map[string]any{"path": f.SourceID, "format": string(d.Format)}
	if d.Title != "" {
		meta["title"] = d.Title
	}
	maps.Copy(meta, stringMap(d.Meta))
	doc := &Doc{File: f, Text: text, Meta: map[string]any{"document": meta}}
	doc.TextDigest = Digest(doc.Text)
	doc.MetaDigest = metaDigest(doc.Meta, s)
	return doc, nil
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// metadata returns the entry metadata of d with its ingest block.
func (d *Doc) metadata(thread string, now time.Time) map[string]any {
	m := maps.Clone(d.Meta)
	m["ingest"] = syncplan.Block{Scope: thread, SourceID: d.SourceID, MetaDigest: d.MetaDigest,
		SyncedAt: now.UTC().Format(time.RFC3339Nano)}.Map()
	return m
}

// reason turns a per-file error into the words of the summary.
func reason(err error) string {
	switch {
	case errors.Is(err, errNoText):
		return "no extractable text"
	case errors.Is(err, cerrors.ErrTooLarge), errors.Is(err, cerrors.ErrMalformed), errors.Is(err, cerrors.ErrUnsupported):
		return err.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("extraction timed out: %v", err)
	}
	return err.Error()
}
