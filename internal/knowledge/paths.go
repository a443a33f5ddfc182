package knowledge

import (
	"encoding/hex"
	"path"
	"strings"
)

// SupportedExtensions is the upload allow-list (requirements B2): the
// union of the parsers' extensions, in the order the error message lists
// them. .html and .htm stay out although index/extract reads HTML (and
// `contextd ingest` uses it): B2 names them "rejected at upload", the
// error text is pinned byte for byte with exactly this list (H22), and
// XSS-04 relies on HTML never being stored. Were they added, nothing else
// would change: an extension that is not textNative is kept as a blob
// and ingested through extract.As, whose HTML extractor drops the tags.
var SupportedExtensions = []string{".csv", ".docx", ".json", ".log", ".markdown", ".md", ".pdf", ".pptx", ".txt", ".xml", ".yaml", ".yml"}

// textNative are the extensions whose stored bytes are the document's
// text; get_document returns them byte for byte (requirements A8.6).
var textNative = map[string]bool{".txt": true, ".md": true, ".markdown": true, ".csv": true, ".log": true,
	".json": true, ".xml": true, ".yaml": true, ".yml": true}

// SupportedList is SupportedExtensions joined for messages.
func SupportedList() string { return strings.Join(SupportedExtensions, ", ") }

// Supported reports whether ext (lower case, with the dot) may be uploaded.
func Supported(ext string) bool {
	for _, e := range SupportedExtensions {
		if e == ext {
			return true
		}
	}
	return false
}

// Ext is the lower-cased extension of name as .NET's Path.GetExtension
// computes it: from the last dot, "" when there is none or the name ends
// with a dot ("..." has none; "a.md " is ".md ").
func Ext(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i < 0 || i == len(name)-1 {
		return ""
	}
	return strings.ToLower(name[i:])
}

// NormalizePath is the virtual path of p: "\" read as "/", surrounding
// space trimmed, "." and ".." segments collapsed and clamped at the root,
// empty segments dropped, a leading "/" and no trailing one ("/" for the
// root). "folder\file.txt" is "/folder/file.txt".
func NormalizePath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	// path.Clean on a rooted path collapses "//", "." and "..", clamping
	// ".." at the root. Cleaning can bare new outer blanks ("0 /" is
	// "/0 "), so trim and clean until nothing changes: the result is a
	// fixed point (FuzzNormalizePath), and each round only shortens it.
	for {
		t := strings.TrimSpace(p)
		if t == "" {
			return "/"
		}
		c := path.Clean("/" + t)
		if c == p {
			return c
		}
		p = c
	}
}

// NormalizeFolderPath is NormalizePath with a trailing "/": "/a" is
// "/a/", blank is "/".
func NormalizeFolderPath(p string) string {
	n := NormalizePath(p)
	if n == "/" {
		return n
	}
	return n + "/"
}

// ParentPath is the folder of a document path: "/a/b/c" is "/a/b/",
// "/file.txt" is "/".
func ParentPath(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i+1]
}

// ContainsTraversal reports a ".." segment in p ("\" read as "/"); an
// upload path with one is refused rather than collapsed.
func ContainsTraversal(p string) bool {
	for _, s := range strings.Split(strings.ReplaceAll(p, `\`, "/"), "/") {
		if s == ".." {
			return true
		}
	}
	return false
}

// Depth counts the non-empty segments of p.
func Depth(p string) int {
	n := 0
	for _, s := range strings.Split(strings.ReplaceAll(p, `\`, "/"), "/") {
		if s != "" {
			n++
		}
	}
	return n
}

// hasControl reports a character at or below U+001F or U+007F.
func hasControl(s string) bool {
	for _, r := range s {
		if r <= 0x1f || r == 0x7f {
			return true
		}
	}
	return false
}

// ValidFileName is the file-name rule (requirements D2): not blank, no
// control characters, no "/" or "\", not "." or "..".
func ValidFileName(n string) bool {
	switch {
	case strings.TrimSpace(n) == "", hasControl(n), strings.ContainsAny(n, `/\`), n == ".", n == "..":
		return false
	}
	return true
}

// ParseID reads a UUID in any of .NET's D, N, B or P forms, any case, and
// returns the 32-digit lower-case hex form entry ids use.
func ParseID(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) == 38 && (s[0] == '{' && s[37] == '}' || s[0] == '(' && s[37] == ')') {
		s = s[1:37]
	}
	if len(s) == 36 {
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return "", false
		}
		s = s[:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	}
	if len(s) != 32 {
		return "", false
	}
	if _, err := hex.DecodeString(s); err != nil {
		return "", false
	}
	return strings.ToLower(s), true
}

// FormatID is the hyphenated D form of a 32-digit entry id.
func FormatID(id string) string {
	if len(id) != 32 {
		return id
	}
	return id[:8] + "-" + id[8:12] + "-" + id[12:16] + "-" + id[16:20] + "-" + id[20:]
}
