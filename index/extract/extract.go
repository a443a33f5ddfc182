// Package extract owns turning document files into plain text: Markdown,
// plain text, source code, HTML (golang.org/x/net/html), PDF
// (github.com/ledongthuc/pdf), DOCX and PPTX (archive/zip + encoding/xml),
// CSV and JSON. It is shared by `contextd ingest` (corpus sync) and the
// knowledge tools, so it knows nothing about either: it maps a file name
// to a Format and bytes to a Document.
//
//	doc, err := extract.File(ctx, "docs/handbook.pdf", extract.Options{})
//	switch {
//	case errors.Is(err, cerrors.ErrUnsupported): // not a document we read
//	case err != nil:                            // this file only is broken
//	default:
//		store(doc.Text) // "--- Page 1 ---\n..." for a PDF
//	}
//
// Every extraction is bounded: the input by Options.MaxBytes (also the
// cap on every decompressed OOXML part and on the produced text, so a zip
// bomb cannot grow memory past it), and the time by Options.Timeout. A
// broken file, a parser panic or a timeout is an error for that file
// only, never a crash: extractors run in their own goroutine behind
// recover. A timed-out parser cannot be stopped from outside (Go has no
// goroutine kill), so it is abandoned; the size limit bounds what it can
// still hold.
package extract

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/contextd/contextd/cerrors"
)

// Format is a document format an extractor reads.
type Format string

// The formats of this package.
const (
	Markdown Format = "markdown"
	Text     Format = "text"
	Code     Format = "code"
	HTML     Format = "html"
	PDF      Format = "pdf"
	DOCX     Format = "docx"
	PPTX     Format = "pptx"
	CSV      Format = "csv"
	JSON     Format = "json"
)

// Document is the text extracted from one file.
type Document struct {
	Format Format
	// Text is the document's text: UTF-8, "\n" line ends, surrounding
	// whitespace removed. PDF pages and PPTX slides are introduced by
	// "--- Page N ---" and "--- Slide N ---" lines.
	Text string
	// Title is the document's own title when it names one (HTML <title>,
	// the first Markdown heading, OOXML or PDF properties), else "".
	Title string
	// Meta holds format details: "language" for code, "pages", "slides",
	// "author", "delimiter" (CSV), ... Keys are lower-case.
	Meta map[string]string
}

// Options bound an extraction. The zero value means the defaults.
type Options struct {
	// MaxBytes caps the input file, every decompressed part of an OOXML
	// archive and the extracted text (default 32 MiB). A bigger file is
	// refused with ErrTooLarge before it is read.
	MaxBytes int64
	// Timeout caps one extraction (default 30 s).
	Timeout time.Duration
}

// DefaultMaxBytes and DefaultTimeout are the defaults of Options. 32 MiB
// holds any real handbook (the largest PDF of Debian's linux-doc is under
// 10 MiB); 30 s is over 100 times what the fixtures of this package take.
const (
	DefaultMaxBytes = 32 << 20
	DefaultTimeout  = 30 * time.Second
)

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o
}

// codeLanguages maps source-code extensions to a language name.
var codeLanguages = map[string]string{
	".go": "go", ".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
	".ts": "typescript", ".tsx": "typescript", ".jsx": "javascript", ".java": "java", ".kt": "kotlin",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp", ".rs": "rust",
	".rb": "ruby", ".php": "php", ".swift": "swift", ".scala": "scala", ".sh": "shell", ".bash": "shell",
	".zsh": "shell", ".ps1": "powershell", ".sql": "sql", ".css": "css", ".scss": "scss", ".lua": "lua",
	".pl": "perl", ".r": "r", ".dart": "dart", ".ex": "elixir", ".exs": "elixir", ".erl": "erlang",
	".hs": "haskell", ".ml": "ocaml", ".clj": "clojure", ".vue": "vue", ".svelte": "svelte",
	".proto": "protobuf", ".tf": "terraform", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml",
	".ini": "ini", ".cfg": "ini", ".xml": "xml", ".graphql": "graphql", ".mk": "make",
}

// textExtensions are prose formats read as plain text.
var textExtensions = map[string]bool{
	".txt": true, ".text": true, ".log": true, ".rst": true, ".adoc": true, ".asciidoc": true,
	".org": true, ".tex": true,
}

// namedText are well-known extensionless text files.
var namedText = map[string]Format{
	"readme": Text, "license": Text, "copying": Text, "authors": Text, "changelog": Text,
	"notice": Text, "makefile": Code, "dockerfile": Code,
}

// ForName returns the format of a file name, by its extension (case
// insensitive) or, for a few well-known extensionless names (README,
// LICENSE, Makefile, ...), by the name itself.
func ForName(name string) (Format, bool) {
	base := filepath.Base(name)
	ext := strings.ToLower(filepath.Ext(base))
	switch ext {
	case ".md", ".markdown", ".mdx", ".mkd":
		return Markdown, true
	case ".html", ".htm", ".xhtml":
		return HTML, true
	case ".pdf":
		return PDF, true
	case ".docx":
		return DOCX, true
	case ".pptx":
		return PPTX, true
	case ".csv", ".tsv":
		return CSV, true
	case ".json", ".jsonl", ".ndjson":
		return JSON, true
	}
	if textExtensions[ext] {
		return Text, true
	}
	if _, ok := codeLanguages[ext]; ok {
		return Code, true
	}
	if ext == "" {
		f, ok := namedText[strings.ToLower(base)]
		return f, ok
	}
	return "", false
}

// File reads and extracts the file at path. A file bigger than MaxBytes
// is refused before it is read.
func File(ctx context.Context, path string, opt Options) (*Document, error) {
	opt = opt.withDefaults()
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: %w", filepath.Base(path), cerrors.ErrUnsupported)
	}
	if fi.Size() > opt.MaxBytes {
		return nil, tooLarge("file", fi.Size(), opt.MaxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, opt.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return Bytes(ctx, path, data, opt)
}

// Bytes extracts data, the content of a file named name (the name picks
// the format; see ForName).
func Bytes(ctx context.Context, name string, data []byte, opt Options) (*Document, error) {
	opt = opt.withDefaults()
	format, ok := ForName(name)
	if !ok {
		ext := strings.ToLower(filepath.Ext(name))
		return nil, fmt.Errorf("no extractor for %q files: %w", ext, cerrors.ErrUnsupported)
	}
	return As(ctx, format, name, data, opt)
}

// As extracts data as format, whatever its name says.
func As(ctx context.Context, format Format, name string, data []byte, opt Options) (*Document, error) {
	opt = opt.withDefaults()
	if int64(len(data)) > opt.MaxBytes {
		return nil, tooLarge("file", int64(len(data)), opt.MaxBytes)
	}
	run, ok := extractors[format]
	if !ok {
		return nil, fmt.Errorf("unknown format %q: %w", format, cerrors.ErrUnsupported)
	}
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	type result struct {
		doc *Document
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned extractor never blocks
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("%s parser failed: %v: %w", format, r, cerrors.ErrMalformed)}
			}
		}()
		doc, err := run(ctx, name, data, opt)
		done <- result{doc, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, r.err
		}
		r.doc.Format = format
		r.doc.Text = strings.TrimSpace(r.doc.Text)
		if r.doc.Meta == nil {
			r.doc.Meta = map[string]string{}
		}
		if int64(len(r.doc.Text)) > opt.MaxBytes {
			return nil, tooLarge("extracted text", int64(len(r.doc.Text)), opt.MaxBytes)
		}
		return r.doc, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("extract %s: gave up after %s: %w", format, opt.Timeout, ctx.Err())
	}
}

type extractor func(ctx context.Context, name string, data []byte, opt Options) (*Document, error)

var extractors map[Format]extractor

func init() {
	extractors = map[Format]extractor{
		Markdown: extractMarkdown, Text: extractText, Code: extractCode, CSV: extractCSV,
		JSON: extractJSON, HTML: extractHTML, PDF: extractPDF, DOCX: extractDOCX, PPTX: extractPPTX,
	}
}

func tooLarge(what string, n, limit int64) error {
	return fmt.Errorf("%s is %d bytes, over the limit of %d: %w", what, n, limit, cerrors.ErrTooLarge)
}

func malformed(format Format, why string) error {
	return fmt.Errorf("%s: %s: %w", format, why, cerrors.ErrMalformed)
}

// limitedBuffer collects text up to a cap and fails past it, so a
// document that expands (a zip bomb, a PDF of repeated pages) stops at
// MaxBytes instead of exhausting memory.
type limitedBuffer struct {
	bytes.Buffer
	limit int64
}

func (b *limitedBuffer) add(s string) error {
	if int64(b.Len()+len(s)) > b.limit {
		return tooLarge("extracted text", int64(b.Len()+len(s)), b.limit)
	}
	b.WriteString(s)
	return nil
}
