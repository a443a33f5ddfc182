package knowledge

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
)

// The checks and loops of the upload and bulk tools, in the knowledge API
// reference's order and wording; the facade calls them around resolving
// the container.

// MaxBulk is the most files or ids of one bulk_upload or bulk_delete.
const MaxBulk = 100

// CheckUpload checks upload_file's file name and which content it
// carries, before the container is resolved.
func CheckUpload(name string, hasContent, hasText bool) error {
	ext := Ext(name)
	switch {
	case name == "":
		return cerrors.Invalidf("'fileName' is required.")
	case !ValidFileName(name):
		return cerrors.Invalidf("invalid filename '%s' \u2014 must not contain path separators or '..' segments.", name)
	case !Supported(ext):
		return cerrors.Invalidf("file type '%s' is not supported. Supported types: %s", ext, SupportedList())
	case hasContent && hasText:
		return cerrors.Invalidf("Provide either 'content' or 'textContent', not both.")
	case !hasContent && !hasText:
		return cerrors.Invalidf("Provide either 'content' (base64) or 'textContent' (raw text).")
	}
	return nil
}

// UploadData is upload_file's bytes: content decoded from base64, or the
// raw text.
func UploadData(content, text *string) ([]byte, error) {
	if content == nil {
		return []byte(*text), nil
	}
	data, err := DecodeBase64(*content)
	if err != nil {
		return nil, cerrors.Invalidf("'content' must be valid base64-encoded data.")
	}
	return data, nil
}

// CheckBulk checks that a bulk tool's array (named array) holds 1 to
// MaxBulk items.
func CheckBulk(tool, array string, n int) error {
	switch {
	case n == 0:
		return cerrors.Invalidf("'%s' array must not be empty.", array)
	case n > MaxBulk:
		return cerrors.Invalidf("Maximum %d files per %s call.", MaxBulk, tool)
	}
	return nil
}

// DecodeBase64 reads standard base64 with padding, skipping whitespace as
// .NET's Convert.FromBase64String does.
func DecodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, s)
	return base64.StdEncoding.DecodeString(s)
}

// BulkFile is one file of bulk_upload.
type BulkFile struct {
	Name, Content, Folder string
	Base64                bool // Content is base64, else text
}

// BulkResult is the outcome of one item of a bulk call.
type BulkResult struct {
	Uploaded *Uploaded // an accepted upload (bulk_upload only)
	Error    string    // the refusal's message, "" on success
	// Rejected marks an item refused before it reached the container.
	Rejected bool
}

// BulkUpload uploads files to c as acc (bulk_upload): a file refused,
// before or by its upload, is a result with its message; the others are
// uploaded all the same. Any other failure ends the call.
func (s *Service) BulkUpload(ctx context.Context, acc persist.Access, c *Container, files []BulkFile) ([]BulkResult, error) {
	out := make([]BulkResult, len(files))
	for i, f := range files {
		r := &out[i]
		switch {
		case strings.TrimSpace(f.Name) == "":
			r.Error, r.Rejected = "missing 'filename'", true
			continue
		case f.Content == "":
			r.Error, r.Rejected = "missing 'content'", true
			continue
		}
		data := []byte(f.Content)
		if f.Base64 {
			var err error
			if data, err = DecodeBase64(f.Content); err != nil {
				r.Error, r.Rejected = "invalid base64 content", true
				continue
			}
		}
		up, err := s.Upload(ctx, acc, c, File{Name: f.Name, Folder: f.Folder, Data: data})
		if r.Error, err = refusal(err); err != nil {
			return nil, err
		}
		if r.Error == "" {
			r.Uploaded = up
		}
	}
	return out, nil
}

// BulkDelete deletes documents of c by id as acc (bulk_delete); an id
// refused is a result with its message.
func (s *Service) BulkDelete(ctx context.Context, acc persist.Access, c *Container, ids []string) ([]BulkResult, error) {
	out := make([]BulkResult, len(ids))
	for i, id := range ids {
		_, err := s.DeleteFile(ctx, acc, c, id)
		if out[i].Error, err = refusal(err); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// refusal splits err into the message of a refusal (an *Error) and any
// other error.
func refusal(err error) (string, error) {
	var ce *cerrors.Error
	switch {
	case err == nil:
		return "", nil
	case errors.As(err, &ce):
		return ce.Msg, nil
	}
	return "", err
}
