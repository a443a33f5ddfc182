package persist

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

// Knowledge threads. The knowledge tools keep their containers as entries
// of thread KnowledgeThread and the documents of container C as entries
// of thread KnowledgeThreadPrefix+C, each with its record in metadata
// under KnowledgeMetaKey (internal/knowledge). They are ordinary entries
// with one rule for the context tools' aggregate views: list_threads,
// get_statistics (every count and coverage figure) and the search tools
// without a thread_id leave them out (Filter.OmitKnowledge, and the
// ListThreads, Stats, EmbeddingCounts and CountNodeSummaries of every
// backend); a search naming a knowledge thread, and reads by id, see
// them like any entry.
const (
	KnowledgeThread       = "knowledge"
	KnowledgeThreadPrefix = "knowledge/"
	KnowledgeMetaKey      = "knowledge"
)

// IsKnowledgeThread reports whether thread holds knowledge containers or
// documents: "knowledge" or "knowledge/..." (case-sensitive, as thread
// ids are).
func IsKnowledgeThread(thread string) bool {
	return thread == KnowledgeThread || strings.HasPrefix(thread, KnowledgeThreadPrefix)
}

// BlobPath reports a metadata path at or under the knowledge record's
// "blob" (knowledge.blob...). PublicMetadata cuts that member from the
// metadata of knowledge threads, so a metadata condition on such a path
// sees it absent there: the SQL builders test it on no metadata (as the
// catalog, which never holds it, does), so a filter cannot probe a
// pending upload's bytes either.
func BlobPath(path []string) bool {
	return len(path) >= 2 && path[0] == KnowledgeMetaKey && path[1] == "blob"
}

// PublicMetadata is meta as it may leave the engine or be indexed: for an
// entry of a knowledge thread, every "blob" member of its record (the
// base64 of a binary upload waiting for ingestion) is cut out, the rest
// kept byte for byte; any other metadata is meta itself. A pending
// upload's bytes belong to the knowledge service, never to an entry's
// visible or searchable metadata. meta is not modified.
func PublicMetadata(thread string, meta []byte) []byte {
	if !IsKnowledgeThread(thread) || !bytes.Contains(meta, []byte(`"blob"`)) {
		return meta
	}
	cuts, ok := blobMembers(meta)
	if !ok || len(cuts) == 0 {
		return meta
	}
	out := make([]byte, 0, len(meta))
	at := 0
	for _, c := range cuts {
		out = append(out, meta[at:c[0]]...)
		at = c[1]
	}
	return append(out, meta[at:]...)
}

// blobMembers finds the byte ranges of the "blob" members of the
// top-level "knowledge" object of meta, each with the comma that
// separates it from a neighbour, in order; ok is false for anything but
// a well-formed JSON object.
func blobMembers(meta []byte) (cuts [][2]int, ok bool) {
	ok = members(meta, func(k string, _, start, end int) {
		if k != KnowledgeMetaKey || meta[start] != '{' {
			return
		}
		rec := meta[:end] // offsets stay those of meta
		first := true
		members(rec[start:], func(k string, before, _, after int) {
			before, after = start+before, start+after
			if k != "blob" {
				first = false
				return
			}
			cut := [2]int{before, after}
			if first {
				// The first member (or the first left): cut from its key
				// to the comma after its value, when one follows.
				cut[0] = before + bytes.IndexByte(rec[before:], '"')
				rest := bytes.TrimLeft(rec[after:], " \t\r\n")
				if len(rest) > 0 && rest[0] == ',' {
					cut[1] = len(rec) - len(rest) + 1
				}
			}
			cuts = append(cuts, cut)
		})
	})
	return cuts, ok
}

// members calls fn for each member of the JSON object obj with its key,
// the offset after the '{' or the previous value, and the value's range;
// it reports whether obj is one well-formed object.
func members(obj []byte, fn func(key string, before, start, end int)) bool {
	d := json.NewDecoder(bytes.NewReader(obj))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for {
		before := int(d.InputOffset())
		t, err := d.Token()
		if err != nil {
			return false
		}
		if t == json.Delim('}') {
			break
		}
		k, isKey := t.(string)
		var v json.RawMessage
		if !isKey || d.Decode(&v) != nil {
			return false
		}
		end := int(d.InputOffset())
		fn(k, before, end-len(v), end)
	}
	_, err := d.Token()
	return err == io.EOF
}
