package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
)

// Document statuses (requirements B1).
const (
	Pending    = "Pending"
	Processing = "Processing"
	Ready      = "Ready"
	Failed     = "Failed"
)

// The threads knowledge entries live in (persist owns the names: the
// context tools' aggregate views leave them out): every container is an
// entry of containerThread; the documents of container c are the entries
// of docThreadPrefix+c. Both are ordinary threads, so get_context_by_ids
// and a search naming the thread see the same documents under the same
// access rules. metaKey is the metadata key holding an entry's record.
const (
	containerThread = persist.KnowledgeThread
	docThreadPrefix = persist.KnowledgeThreadPrefix
	metaKey         = persist.KnowledgeMetaKey
)

// record is what a container or document entry keeps in its metadata
// under "knowledge". A container sets Kind, Name, Description; a document
// the rest.
type record struct {
	Kind        string `json:"kind"` // KindManaged, KindSource or "document"
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Container   string `json:"container,omitempty"`
	Path        string `json:"path,omitempty"`
	Size        int64  `json:"size,omitempty"`
	Status      string `json:"status,omitempty"`
	Error       string `json:"error,omitempty"`
	// Generation counts uploads to the path: a job carries the generation
	// it was queued for and a job of an older one is stale.
	Generation int    `json:"generation,omitempty"`
	Job        string `json:"job,omitempty"`
	Strategy   string `json:"strategy,omitempty"`
	Chunks     int    `json:"chunks,omitempty"`
	Model      string `json:"model,omitempty"`
	Dims       int    `json:"dims,omitempty"`
	IndexedAt  string `json:"indexed_at,omitempty"`
	// Blob is the base64 of a binary upload (PDF, DOCX, PPTX) until it is
	// ingested; a Ready document keeps only its extracted text.
	Blob string `json:"blob,omitempty"`
	// Dir is a source's folder; Digest a source document's file digest
	// (SHA-256 of its bytes), so a sync re-ingests only what changed.
	Dir    string `json:"dir,omitempty"`
	Digest string `json:"digest,omitempty"`
	// Spans are a Ready document's chunks as byte ranges of its text with
	// their Markdown breadcrumb, when every chunk is exactly that: the
	// index is rebuilt from them at start without chunking again (cl100k
	// token counting was 75% of a restart's rebuild: 5.0 s for 10,000
	// chunks before, see BenchmarkRestartRebuild).
	Spans []span `json:"spans,omitempty"`
	// Hash is hashText of the text a Ready document's chunks were made
	// from: an entry whose text no longer has it was edited through the
	// context tools (update_context), and the index chunks, embeds and
	// sizes the new text instead.
	Hash string `json:"hash,omitempty"`
}

// edited reports whether text, the document entry's text now, is no
// longer the text its chunks were made from (hashed as h): it was changed
// through the context tools after ingestion.
func (r *record) edited(h string) bool { return r.Hash != "" && r.Hash != h }

// sizeOf is the document's size as every view reports it (list_files,
// get_document, container_stats): the uploaded bytes, or once the entry's
// text was edited through the context tools, the new text's length.
func (r *record) sizeOf(text, h string) int64 {
	if r.edited(h) {
		return int64(len(text))
	}
	return r.Size
}

// span is one stored chunk: text[S:E], prefixed by H and a blank line
// when H is set.
type span struct {
	S int    `json:"s"`
	E int    `json:"e"`
	H string `json:"h,omitempty"`
}

// spansOf records chunks as spans of text, or nil when one is not a
// plain slice (Semantic chunks join sentences with single spaces).
func spansOf(text string, chunks []Chunk) []span {
	out := make([]span, len(chunks))
	for i, c := range chunks {
		h, ok := spanHead(text, c)
		if !ok {
			return nil
		}
		out[i] = span{S: c.Start, E: c.End, H: h}
	}
	return out
}

// chunksOf rebuilds chunks from spans, or reports false when a span does
// not fit text.
func chunksOf(text string, spans []span) ([]Chunk, bool) {
	out := make([]Chunk, len(spans))
	for i, sp := range spans {
		if sp.S < 0 || sp.E > len(text) || sp.S > sp.E {
			return nil, false
		}
		t := text[sp.S:sp.E]
		if sp.H != "" {
			t = sp.H + "\n\n" + t
		}
		out[i] = Chunk{Text: t, Start: sp.S, End: sp.E}
	}
	return out, true
}

// The kinds of container_list: a container the server stores, or a
// folder it mirrors read-only.
const (
	KindManaged = "managed"
	KindSource  = "source"
)

func encodeRecord(r record) (json.RawMessage, error) {
	b, err := json.Marshal(map[string]record{metaKey: r})
	if err != nil {
		return nil, fmt.Errorf("encode record: %w", err)
	}
	return b, nil
}

// decodeRecord reads the record of an entry's metadata; ok is false for
// an entry that is not a knowledge entry.
func decodeRecord(m json.RawMessage) (record, bool) {
	if len(m) == 0 {
		return record{}, false
	}
	var w map[string]json.RawMessage
	if json.Unmarshal(m, &w) != nil || w[metaKey] == nil {
		return record{}, false
	}
	var r record
	if json.Unmarshal(w[metaKey], &r) != nil || r.Kind == "" {
		return record{}, false
	}
	return r, true
}

func hashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// newEntry is an entry holding r.
func newEntry(id, thread, owner, visibility, text string, r record, now time.Time) (*persist.Entry, error) {
	m, err := encodeRecord(r)
	if err != nil {
		return nil, err
	}
	return &persist.Entry{ID: id, ThreadID: thread, Source: "user", ContentType: "text", Text: text,
		Metadata: m, ContentHash: hashText(text), Version: 1, Owner: owner, Visibility: visibility,
		CreatedAt: now, UpdatedAt: now, Tags: []string{}}, nil
}

// rewrite replaces the record (and, when text is non-nil, the text) of
// entry id inside tx, checked against the version read in the same
// transaction. apply sees the stored record and may refuse with an error
// or skip with ok false.
func rewrite(ctx context.Context, tx persist.Tx, id string, now time.Time, text *string,
	apply func(r *record) (ok bool, err error)) (bool, error) {
	st, found, err := tx.State(ctx, persist.Access{}, id)
	if err != nil {
		return false, fmt.Errorf("read document state: %w", err)
	}
	if !found {
		return false, nil
	}
	r, ok := decodeRecord(st.Metadata)
	if !ok {
		return false, nil
	}
	if ok, err := apply(&r); err != nil || !ok {
		return false, err
	}
	m, err := encodeRecord(r)
	if err != nil {
		return false, err
	}
	u := persist.Update{Metadata: &m, BumpVersion: true, UpdatedAt: now, ExpectVersion: st.Version}
	if text != nil {
		h := hashText(*text)
		u.Text, u.ContentHash = text, &h
	}
	changed, err := tx.Update(ctx, id, u)
	if err != nil {
		return false, fmt.Errorf("update document: %w", err)
	}
	if !changed {
		return false, cerrors.New(cerrors.ErrConflict, "document changed concurrently")
	}
	return true, nil
}
