package extract

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/contextd/contextd/cerrors"
	"golang.org/x/text/encoding/charmap"
)

// decodeText turns the bytes of a text file into UTF-8 with "\n" line
// ends: a UTF-8 BOM is dropped, UTF-16 with a BOM is decoded, and bytes
// that are not UTF-8 are read as Windows-1252 (the usual encoding of
// old Western text files, and a superset of Latin-1 for printable
// characters). A NUL byte in the first 8 KiB marks a binary file, which is
// refused rather than stored as noise (git uses the same test).
func decodeText(format Format, data []byte) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return normalizeNewlines(decodeUTF16(data)), nil
	}
	head := data[:min(len(data), 8<<10)]
	if bytes.IndexByte(head, 0) >= 0 {
		return "", fmt.Errorf("%s: binary content (NUL bytes): %w", format, cerrors.ErrUnsupported)
	}
	var s string
	if utf8.Valid(data) {
		s = string(data)
	} else {
		b, err := charmap.Windows1252.NewDecoder().Bytes(data)
		if err != nil {
			return "", malformed(format, "neither UTF-8 nor Windows-1252")
		}
		s = string(b)
	}
	return normalizeNewlines(s), nil
}

// decodeUTF16 decodes UTF-16 text that starts with its byte-order mark.
func decodeUTF16(data []byte) string {
	big := data[0] == 0xFE
	data = data[2:]
	u := make([]uint16, 0, len(data)/2)
	for i := 0; i+1 < len(data); i += 2 {
		if big {
			u = append(u, uint16(data[i])<<8|uint16(data[i+1]))
		} else {
			u = append(u, uint16(data[i+1])<<8|uint16(data[i]))
		}
	}
	return string(utf16.Decode(u))
}

// normalizeNewlines turns "\r\n" and lone "\r" into "\n".
func normalizeNewlines(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

func extractText(_ context.Context, _ string, data []byte, _ Options) (*Document, error) {
	s, err := decodeText(Text, data)
	if err != nil {
		return nil, err
	}
	return &Document{Text: s}, nil
}

// extractMarkdown keeps Markdown as written (headings are what
// navigate_context outlines) and takes the first ATX heading as title.
func extractMarkdown(_ context.Context, _ string, data []byte, _ Options) (*Document, error) {
	s, err := decodeText(Markdown, data)
	if err != nil {
		return nil, err
	}
	doc := &Document{Text: s}
	inFence := false
	for line := range strings.Lines(s) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if !inFence && strings.HasPrefix(t, "#") {
			h := strings.TrimLeft(t, "#")
			if len(t)-len(h) <= 6 && (h == "" || h[0] == ' ' || h[0] == '\t') {
				doc.Title = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#"))
				if doc.Title != "" {
					break
				}
			}
		}
	}
	return doc, nil
}

func extractCode(_ context.Context, name string, data []byte, _ Options) (*Document, error) {
	s, err := decodeText(Code, data)
	if err != nil {
		return nil, err
	}
	lang := codeLanguages[strings.ToLower(filepath.Ext(name))]
	if lang == "" {
		lang = strings.ToLower(filepath.Base(name))
	}
	return &Document{Text: s, Meta: map[string]string{"language": lang}}, nil
}

// extractCSV keeps the table as written (it reads best to a person and a
// model alike) after checking that it parses, and reports the delimiter
// and the number of records. The delimiter is guessed from the first line
// as the knowledge reference does: "," unless tabs or ";" outnumber it.
func extractCSV(_ context.Context, name string, data []byte, _ Options) (*Document, error) {
	s, err := decodeText(CSV, data)
	if err != nil {
		return nil, err
	}
	first, _, _ := strings.Cut(s, "\n")
	delim := ','
	commas, tabs, semis := strings.Count(first, ","), strings.Count(first, "\t"), strings.Count(first, ";")
	switch {
	case strings.EqualFold(filepath.Ext(name), ".tsv") || (tabs > commas && tabs >= semis):
		delim = '\t'
	case semis > commas && semis > tabs:
		delim = ';'
	}
	r := csv.NewReader(strings.NewReader(s))
	r.Comma = delim
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = true
	records := 0
	for {
		_, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, malformed(CSV, err.Error())
		}
		records++
	}
	return &Document{Text: s, Meta: map[string]string{
		"delimiter": string(delim), "records": strconv.Itoa(records),
	}}, nil
}

// extractJSON keeps the JSON text as written after checking it: a JSON
// file (or a JSON Lines file, one value per line) that does not parse is
// broken, not text. JSON with comments and trailing commas (JSONC:
// tsconfig.json, VS Code settings) is accepted and marked "dialect":
// "jsonc".
func extractJSON(ctx context.Context, _ string, data []byte, _ Options) (*Document, error) {
	s, err := decodeText(JSON, data)
	if err != nil {
		return nil, err
	}
	values, err := countJSON(ctx, s)
	if err == nil {
		return &Document{Text: s, Meta: map[string]string{"values": strconv.Itoa(values)}}, nil
	}
	if plain, ok := stripJSONC(s); ok {
		if values, err2 := countJSON(ctx, plain); err2 == nil {
			return &Document{Text: s, Meta: map[string]string{"values": strconv.Itoa(values), "dialect": "jsonc"}}, nil
		}
	}
	return nil, err
}

// countJSON counts the JSON values of s (one for a JSON file, one a line
// for JSON Lines).
func countJSON(ctx context.Context, s string) (int, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	values := 0
	for {
		if values%1024 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		var v json.RawMessage
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, malformed(JSON, err.Error())
		}
		values++
	}
	if values == 0 && strings.TrimSpace(s) != "" {
		return 0, malformed(JSON, "no JSON value")
	}
	return values, nil
}

// stripJSONC removes // and /* */ comments (outside strings) and commas
// before a closing bracket or brace; ok is false when there was nothing to
// remove or a comment never closes.
func stripJSONC(s string) (string, bool) {
	var b strings.Builder
	changed, inString := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			b.WriteByte(c)
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			changed = true
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return "", false
			}
			changed = true
			i += end + 3
			b.WriteByte(' ')
		case c == ',':
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				changed = true
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), changed
}
