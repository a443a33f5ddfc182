package knowledge

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
)

// File is one upload.
type File struct {
	Name     string // file name with extension
	Folder   string // destination folder ("" is the root)
	Data     []byte
	Strategy string // chunking strategy; "" is Semantic
	digest   string // a source file's digest (record.Digest)
}

// Uploaded is the result of an upload.
type Uploaded struct {
	DocumentID string
	JobID      string
	Path       string
}

func invalid(format string, args ...any) error {
	return cerrors.New(cerrors.ErrInvalid, format, args...)
}

// CheckFile applies the upload rules of requirements A5.8 to f, in their
// order, before anything is written, and those of limits.go.
func (s *Service) CheckFile(f File) error {
	tooLong := pathTooLong(f.Folder)
	switch {
	case utf8.RuneCountInString(f.Name) > 255:
		return invalid("Filename exceeds 255 characters.")
	case !utf8.ValidString(f.Name):
		return invalid(msgNameUnicode)
	case !ValidFileName(f.Name):
		return invalid("Invalid filename: '%s'.", f.Name)
	case ContainsTraversal(f.Folder):
		return invalid("Path traversal is not allowed.")
	case hasControl(f.Folder):
		// Requirements I.8: control characters in a path are refused.
		return invalid("Path must not contain control characters.")
	case !utf8.ValidString(f.Folder):
		return invalid(msgPathUnicode)
	case Depth(f.Folder) > 50:
		return invalid("Path exceeds maximum depth of 50 levels.")
	case tooLong != "":
		return invalid("%s", tooLong)
	case !Supported(Ext(f.Name)):
		return invalid("Unsupported file extension. Supported types: %s", SupportedList())
	case len(f.Data) == 0:
		return invalid("File is empty. Zero-byte uploads are not allowed.")
	case int64(len(f.Data)) > s.opt.MaxUploadBytes:
		return cerrors.New(cerrors.ErrTooLarge, "File exceeds the maximum upload size of %s (%s given).",
			FormatBytes(s.opt.MaxUploadBytes), FormatBytes(int64(len(f.Data))))
	case textNative[Ext(f.Name)] && !utf8.Valid(f.Data):
		return invalid("File '%s' is not valid UTF-8 text.", f.Name)
	case textNative[Ext(f.Name)] && bytes.IndexByte(f.Data, 0) >= 0:
		return invalid(msgTextNUL, f.Name)
	}
	return nil
}

// Upload stores f in container c as a Pending document and queues its
// ingestion. A document already at the same path is replaced: it keeps
// its id, its generation grows, it gets a new upload job (so a job still
// running for the old content, in any process, is stale) and its chunks
// leave the index with the commit.
func (s *Service) Upload(ctx context.Context, acc persist.Access, c *Container, f File) (*Uploaded, error) {
	if err := s.CheckFile(f); err != nil {
		return nil, err
	}
	// The index answers for documents uploaded before ids were derived
	// from paths (pathIDs); while it holds any, it must hold every commit
	// up to now. Without them the derived id is the whole answer, and the
	// catch-up is left to the reads (it cost bulk uploads a quarter of
	// their time: BenchmarkUploadToSearchable).
	if err := s.indexed(ctx); err != nil {
		return nil, err
	}
	if s.idx.hasLegacy() {
		if err := s.catchUp(ctx); err != nil {
			return nil, err
		}
	}
	p := NormalizePath(NormalizeFolderPath(f.Folder) + f.Name)
	ext := Ext(f.Name)
	text, blob := f.Name, ""
	if textNative[ext] {
		text = strings.TrimPrefix(string(f.Data), "\ufeff")
	} else {
		blob = base64.StdEncoding.EncodeToString(f.Data)
	}
	jobID := FormatID(s.ids.Next())
	rec := record{Kind: "document", Name: f.Name, Container: c.ID, Path: p, Size: int64(len(f.Data)),
		Status: Pending, Job: jobID, Strategy: ParseStrategy(f.Strategy), Blob: blob, Digest: f.digest}
	var out Uploaded
	err := s.st.Write(ctx, func(tx persist.Tx) error {
		// Writes are serialized across processes, so what this
		// transaction reads is every commit before it.
		if st, found, err := tx.State(ctx, acc, c.ID); err != nil {
			return fmt.Errorf("container access: %w", err)
		} else if !found || !st.Readable {
			return notFound(c.Name) // deleted since it was resolved
		}
		now := s.opt.Now().UTC()
		for _, id := range s.pathIDs(c.ID, p) {
			// Replacing needs write access to the document itself.
			st, found, err := tx.State(ctx, acc, id)
			if err != nil {
				return fmt.Errorf("document access: %w", err)
			}
			if !found {
				continue
			}
			if !st.Writable {
				return cerrors.New(cerrors.ErrNotAuthorized, "File '%s' exists and is not writable by you.", p)
			}
			replaced, err := rewrite(ctx, tx, id, now, &text, func(r *record) (bool, error) {
				if r.Kind != "document" || r.Container != c.ID || r.Path != p {
					return false, nil
				}
				rec.Generation = r.Generation + 1
				*r = rec
				return true, nil
			})
			if err != nil {
				return err
			}
			if replaced {
				out = Uploaded{DocumentID: id}
				return nil
			}
		}
		rec.Generation = 1
		id := docID(c.ID, p)
		e, err := newEntry(id, docThreadPrefix+c.ID, acc.Principal, c.Visibility, text, rec, now)
		if err != nil {
			return err
		}
		if err := tx.Insert(ctx, e, nil); err != nil {
			return fmt.Errorf("insert document: %w", err)
		}
		out = Uploaded{DocumentID: id}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.jobs.cancel(out.DocumentID, rec.Generation) // a job of the replaced content is stale
	s.q.push(job{doc: out.DocumentID, gen: rec.Generation, id: jobID})
	out.JobID, out.Path = jobID, p
	return &out, nil
}

// pathIDs are the ids a document at path p of container c may have: the
// one derived from both, and the id the index knows at that path for a
// document uploaded before ids were derived.
func (s *Service) pathIDs(container, p string) []string {
	out := []string{docID(container, p)}
	if id, ok := s.idx.byPath(container, p); ok && id != out[0] {
		out = append(out, id)
	}
	return out
}

// Doc is a document as list_files and get_document show it.
type Doc struct {
	ID        string
	Name      string
	Path      string
	Size      int64
	Status    string
	Error     string
	CreatedAt time.Time
	Text      string
	ext       string
}

func docOf(e *persist.Entry) (Doc, bool) {
	r, ok := decodeRecord(e.Metadata)
	if !ok || r.Kind != "document" {
		return Doc{}, false
	}
	return Doc{ID: e.ID, Name: r.Name, Path: r.Path, Size: r.sizeOf(e.Text, hashText(e.Text)), Status: r.Status, Error: r.Error,
		CreatedAt: e.CreatedAt, Text: e.Text, ext: Ext(r.Name)}, true
}

// docs returns the documents of c that acc may read.
func (s *Service) docs(ctx context.Context, acc persist.Access, c *Container, f persist.Filter) ([]Doc, error) {
	f.ThreadID = docThreadPrefix + c.ID
	res, err := s.st.Search(ctx, acc, persist.SearchQuery{Filter: f, Limit: 1 << 30})
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	out := make([]Doc, 0, len(res.Entries))
	for i := range res.Entries {
		if d, ok := docOf(&res.Entries[i]); ok {
			out = append(out, d)
		}
	}
	return out, nil
}

// Listing is one folder of a container.
type Listing struct {
	Folder string
	Dirs   []string // immediate sub-folder names, case-insensitively sorted
	Files  []Doc    // documents directly in Folder, newest first
}

// ListFiles lists folder (normalised) of c as acc sees it. Folders exist
// while a document acc may read lies below them: a folder holding only
// others' private files is "not found", never "(empty)".
func (s *Service) ListFiles(ctx context.Context, acc persist.Access, c *Container, folder string) (*Listing, error) {
	p := NormalizeFolderPath(folder)
	docs, err := s.docs(ctx, acc, c, persist.Filter{})
	if err != nil {
		return nil, err
	}
	l := &Listing{Folder: p}
	seen := map[string]bool{}
	any := false
	for _, d := range docs {
		if !strings.HasPrefix(d.Path, p) {
			continue
		}
		any = true
		rest := d.Path[len(p):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			if dir := rest[:i]; !seen[strings.ToLower(dir)] {
				seen[strings.ToLower(dir)] = true
				l.Dirs = append(l.Dirs, dir)
			}
			continue
		}
		l.Files = append(l.Files, d)
	}
	if !any && p != "/" {
		return nil, cerrors.New(cerrors.ErrNotFound, "Folder '%s' not found in this container.", p)
	}
	sort.Slice(l.Dirs, func(i, j int) bool {
		a, b := strings.ToLower(l.Dirs[i]), strings.ToLower(l.Dirs[j])
		if a != b {
			return a < b
		}
		return l.Dirs[i] < l.Dirs[j]
	})
	sort.SliceStable(l.Files, func(i, j int) bool {
		if !l.Files[i].CreatedAt.Equal(l.Files[j].CreatedAt) {
			return l.Files[i].CreatedAt.After(l.Files[j].CreatedAt)
		}
		return l.Files[i].ID > l.Files[j].ID
	})
	return l, nil
}

// find returns the document of c that fileID names (an id, or a path
// when byPath) if acc may read it.
func (s *Service) find(ctx context.Context, acc persist.Access, c *Container, fileID string, byPath bool) (*Doc, bool, error) {
	ids := []string{}
	if id, ok := ParseID(fileID); ok {
		ids = append(ids, id)
	} else if byPath {
		if err := s.catchUp(ctx); err != nil {
			return nil, false, err
		}
		ids = s.pathIDs(c.ID, NormalizePath(fileID))
	} else {
		return nil, false, nil
	}
	docs, err := s.docs(ctx, acc, c, persist.Filter{IDs: ids})
	if err != nil || len(docs) == 0 {
		return nil, false, err
	}
	return &docs[0], true, nil
}

// Get returns the document fileID (an id or a virtual path) with its
// text, or the status error of requirements A8.
func (s *Service) Get(ctx context.Context, acc persist.Access, c *Container, fileID string) (*Doc, error) {
	d, ok, err := s.find(ctx, acc, c, fileID, true)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, cerrors.New(cerrors.ErrNotFound, "Document '%s' not found in this container.", fileID)
	}
	switch d.Status {
	case Pending, Processing:
		return nil, cerrors.New(cerrors.ErrUnavailable, "Document '%s' is still being ingested (status: %s). Try again later.", d.Name, d.Status)
	case Failed:
		msg := d.Error
		if msg == "" {
			msg = "unknown error"
		}
		return nil, cerrors.New(cerrors.ErrMalformed, "Document '%s' failed ingestion: %s", d.Name, msg)
	}
	return d, nil
}

// DeleteFile removes document fileID (an id only) of c: its entry, its
// chunks, and any ingestion still queued or running for it.
func (s *Service) DeleteFile(ctx context.Context, acc persist.Access, c *Container, fileID string) (*Doc, error) {
	d, ok, err := s.find(ctx, acc, c, fileID, false)
	if err != nil {
		return nil, err
	}
	if ok {
		st, found, err := s.st.State(ctx, acc, d.ID)
		if err != nil {
			return nil, fmt.Errorf("document access: %w", err)
		}
		if found && !st.Writable {
			return nil, cerrors.New(cerrors.ErrNotAuthorized, "File '%s' is read-only for you.", fileID)
		}
		ok = found
	}
	if !ok {
		return nil, cerrors.New(cerrors.ErrNotFound, "File '%s' not found in this container.", fileID)
	}
	err = s.st.Write(ctx, func(tx persist.Tx) error {
		if _, err := tx.Delete(ctx, []string{d.ID}); err != nil {
			return fmt.Errorf("delete document: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.jobs.cancel(d.ID, math.MaxInt)
	return d, nil
}

// FormatBytes is .NET's FormatBytes: "512 B", "1.0 KB", "2.4 MB", "1.1 GB".
func FormatBytes(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	case n < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
}
