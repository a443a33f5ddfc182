package knowledge

import (
	"strings"
	"unicode/utf8"
)

// Limits of what an upload may name and hold beyond requirements A5.8:
// the reference bounds the file name (255 characters) and
// the depth of a path (50 segments), not a path's length, so a folder of
// 20 million characters was stored and list_files answered it back. A
// folder path (normalized, as it is stored) is at most MaxPathChars
// characters and each of its segments at most MaxSegmentChars, the file
// name's limit.
const (
	MaxPathChars    = 1024
	MaxSegmentChars = 255
)

// The refusals of input that would be stored altered: encoding/json, the
// record encoding and PostgreSQL turn an unpaired surrogate (which the
// server keeps as invalid UTF-8, server/rawtext.go) into U+FFFD, and a
// NUL cannot be stored as PostgreSQL text.
const (
	msgNameUnicode = "Filename must be valid Unicode: it contains an unpaired UTF-16 surrogate or invalid UTF-8, which would be stored as U+FFFD."
	msgPathUnicode = "Path must be valid Unicode: it contains an unpaired UTF-16 surrogate or invalid UTF-8, which would be stored as U+FFFD."
	msgPathLength  = "Path exceeds maximum length of 1024 characters."
	msgSegLength   = "Path segment exceeds maximum length of 255 characters."
	msgTextNUL     = "File '%s' contains a NUL (U+0000) character, which cannot be stored as text. Remove it before uploading."
)

// pathTooLong reports the refusal of a folder longer than MaxPathChars
// or with a segment longer than MaxSegmentChars once normalized, or "".
func pathTooLong(folder string) string {
	if len(folder) <= MaxSegmentChars {
		return "" // at most that many characters in all
	}
	n := NormalizeFolderPath(folder)
	for _, s := range strings.Split(n, "/") {
		if len(s) > MaxSegmentChars && utf8.RuneCountInString(s) > MaxSegmentChars {
			return msgSegLength
		}
	}
	if utf8.RuneCountInString(n) > MaxPathChars {
		return msgPathLength
	}
	return ""
}

// checkDescription refuses a container description that would be stored
// altered or not at all: invalid UTF-8 (an unpaired surrogate) or a NUL.
func checkDescription(d string) string {
	switch {
	case !utf8.ValidString(d):
		return "Container description must be valid Unicode: it contains an unpaired UTF-16 surrogate or invalid UTF-8, which would be stored as U+FFFD."
	case strings.IndexByte(d, 0) >= 0:
		return "Container description must not contain a NUL (U+0000) character: it cannot be stored."
	}
	return ""
}
