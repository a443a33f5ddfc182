package knowledge

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// The index keeps no text for a chunk that is a span of its document's
// entry text (indexedChunk), so a search reads from the store the texts
// it needs: its hits' (hitDocs, which read those documents for their
// names and line starts already) and, for a phrase of several terms, the
// chunks holding all of its terms (the words' order is not in the
// index). Each read text is checked against the hash of the text the
// document's chunks were built from (docIndex.hash, taken with the
// candidates under the index's lock): a document changed after the
// search scored it would give offsets into another text, a passage that
// is not the chunk scored. The search then catches up and runs again
// (Search); a document rewritten at every attempt loses its hits and its
// phrase matches on the last, never returns a mismatched passage.

// textBatch is how many documents one read of phrase texts asks for: the
// store returns whole entry texts (1 MB each in the bulk upload), of
// which only the candidates' chunks are kept.
const textBatch = 16

// chunkTexts are the texts of span chunks one search read.
type chunkTexts struct {
	cands   []candidate
	hash    map[string]string // document id -> docIndex.hash of the candidates' documents
	text    map[int32]string  // candidate -> its text, read from the store
	missing map[int32]bool    // candidates whose text a phrase wanted and did not have
}

func newChunkTexts(cands []candidate, hash map[string]string) *chunkTexts {
	return &chunkTexts{cands: cands, hash: hash, text: map[int32]string{}, missing: map[int32]bool{}}
}

// of is candidate c's text (c is t.cands[i] when t is not nil); false
// when it is a span whose text t has not read, which t records.
func (t *chunkTexts) of(c *candidate, i int32) (string, bool) {
	if !c.c.span {
		return c.c.str, true
	}
	if t == nil {
		return "", false
	}
	if s, ok := t.text[i]; ok {
		return s, true
	}
	t.missing[i] = true
	return "", false
}

// textMatches reports whether text is the one a document's chunks were
// built from (want: docIndex.hash).
func textMatches(text, want string) bool { return want != "" && hashText(text) == want }

// fill reads the texts t is missing, textBatch documents a query; stale
// reports a document that changed or went away since the candidates
// were taken (its chunks' texts stay missing).
func (s *Service) fill(ctx context.Context, t *chunkTexts) (stale bool, err error) {
	byDoc := map[string][]int32{}
	var ids []string
	for i := range t.missing {
		d := t.cands[i].doc
		if byDoc[d] == nil {
			ids = append(ids, d)
		}
		byDoc[d] = append(byDoc[d], i)
	}
	clear(t.missing)
	slices.Sort(ids)
	for len(ids) > 0 {
		n := min(len(ids), textBatch)
		docs, err := s.st.IndexDocs(ctx, ids[:n])
		if err != nil {
			return false, fmt.Errorf("chunk texts: %w", err)
		}
		found := 0
		for k := range docs {
			e := &docs[k].Entry
			if byDoc[e.ID] == nil {
				continue
			}
			found++
			if !textMatches(e.Text, t.hash[e.ID]) {
				stale = true
				continue
			}
			for _, i := range byDoc[e.ID] {
				if txt, ok := t.cands[i].c.textIn(e.Text); ok {
					t.text[i] = strings.Clone(txt) // not a slice of the whole document
				}
			}
		}
		if found < n {
			stale = true // deleted since
		}
		ids = ids[n:]
	}
	return stale, nil
}

// hitText is the text of hit candidate c in doc, its document's entry
// text as hitDocs read it; false when the span does not fit.
func hitText(c *candidate, doc string) (string, bool) {
	txt, ok := c.c.textIn(doc)
	if !ok {
		return "", false
	}
	return strings.Clone(txt), true
}
