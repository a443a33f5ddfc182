// Package ingest owns the client side of corpus sync, used by
// `contextd ingest` (the knowledge sources of KNOWLEDGE_SOURCES use its
// walk and watch too): walking a folder with its ignore files and globs, extracting each document's text
// (index/extract), computing the digests of the metadata.ingest block,
// planning in source-id ranges of at most 1,000 with plan_context_sync and
// applying each plan with the batch tools until nothing is left. It talks
// to contextd only through MCP tool calls (Caller), so a sync against the
// local database (an in-process MCP client) and one against a running
// server (streamable HTTP) run the same code and reach the same result.
//
//	files, skipped, err := ingest.Walk(ctx, "docs", ingest.WalkOptions{Exclude: []string{"drafts/**"}})
//	s := &ingest.Syncer{Caller: caller, Thread: "kb:handbook"}
//	sum, err := s.Sync(ctx, files)
//	fmt.Println(sum) // created 12, updated 0, deleted 0, unchanged 340, kept 1, failed 0
//
// A file that cannot be read in this run becomes a keep item of the
// manifest: the plan leaves whatever is stored for it alone, so a
// transient error (a file being written, a permission flip, a PDF
// half-copied) never deletes knowledge.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	ignore "github.com/sabhiram/go-gitignore"

	"github.com/contextd/contextd/index/extract"
	"github.com/contextd/contextd/internal/syncplan"
)

// File is one document of the walked folder.
type File struct {
	// SourceID is the path relative to the root with "/" separators: the
	// document's identity in the corpus.
	SourceID string
	Path     string // the path to open
	Format   extract.Format
	Size     int64
	ModTime  time.Time
}

// WalkOptions select the files of a walk. The zero value takes every
// file of a supported format that no ignore file excludes.
type WalkOptions struct {
	// Include, when set, keeps only files whose source id matches one of
	// these globs (doublestar syntax: "**/*.md", "docs/*.{pdf,docx}").
	Include []string
	// Exclude drops files whose source id matches one of these globs.
	Exclude []string
	// IgnoreFiles are the names of the per-directory ignore files read
	// during the walk, in .gitignore syntax (default .gitignore and
	// .contextignore). A pattern applies below the directory holding it.
	IgnoreFiles []string
}

// Skipped counts the files a walk left out, by reason.
type Skipped struct {
	Ignored     int // an ignore file, a glob or a hidden directory excluded it
	Unsupported int // no extractor reads its format
	// UnsupportedByExt breaks Unsupported down by lower-case file
	// extension ("" for a name without one).
	UnsupportedByExt map[string]int
	// Invalid lists the files whose path cannot be a source id (longer
	// than 256 characters, not UTF-8).
	Invalid []string
}

// defaultIgnoreFiles are read in every directory of a walk.
var defaultIgnoreFiles = []string{".gitignore", ".contextignore"}

// CheckGlobs validates include/exclude patterns before a walk.
func CheckGlobs(globs []string) error {
	for _, g := range globs {
		if !doublestar.ValidatePattern(g) {
			return fmt.Errorf("invalid glob %q", g)
		}
	}
	return nil
}

// Walk lists the documents under root, sorted by source id in code-point
// order (the order plan ranges need). Directories named .git, .hg and
// .svn are never entered; symbolic links are not followed.
func Walk(ctx context.Context, root string, o WalkOptions) ([]File, Skipped, error) {
	var sk Skipped
	if err := errors.Join(CheckGlobs(o.Include), CheckGlobs(o.Exclude)); err != nil {
		return nil, sk, err
	}
	names := o.IgnoreFiles
	if names == nil {
		names = defaultIgnoreFiles
	}
	// A root given as a symbolic link (a mounted share, ~/docs -> /data)
	// is walked where it points; links below it are not followed.
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, sk, fmt.Errorf("walk: %w", err)
	}
	fi, err := os.Stat(root)
	if err != nil {
		return nil, sk, fmt.Errorf("walk: %w", err)
	}
	if !fi.IsDir() {
		return nil, sk, fmt.Errorf("walk: %s is not a directory", root)
	}
	type rules struct {
		dir string // relative, "" for the root
		m   *ignore.GitIgnore
	}
	var stack []rules // ignore rules of the directories above the current one
	ignored := func(rel string, dir bool) bool {
		for _, r := range stack {
			if r.dir != "" && !strings.HasPrefix(rel, r.dir+"/") {
				continue
			}
			sub := strings.TrimPrefix(rel, r.dir+"/")
			if r.dir == "" {
				sub = rel
			}
			if dir {
				sub += "/"
			}
			if r.m.MatchesPath(sub) {
				return true
			}
		}
		return false
	}
	var files []File
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			// An unreadable directory: its files are unknown this run, so
			// nothing under it may be deleted either. Report it.
			return fmt.Errorf("walk %s: %w", path, err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path == root {
				rel = ""
			} else {
				switch d.Name() {
				case ".git", ".hg", ".svn":
					return filepath.SkipDir
				}
				if ignored(rel, true) {
					sk.Ignored++
					return filepath.SkipDir
				}
			}
			for len(stack) > 0 && stack[len(stack)-1].dir != "" && !strings.HasPrefix(rel+"/", stack[len(stack)-1].dir+"/") {
				stack = stack[:len(stack)-1]
			}
			for _, n := range names {
				if m, err := ignore.CompileIgnoreFile(filepath.Join(path, n)); err == nil {
					stack = append(stack, rules{dir: rel, m: m})
				}
			}
			return nil
		}
		// Leaving a directory is seen on its next sibling: drop the rules
		// of directories that do not contain this file.
		for len(stack) > 0 && stack[len(stack)-1].dir != "" && !strings.HasPrefix(rel, stack[len(stack)-1].dir+"/") {
			stack = stack[:len(stack)-1]
		}
		if !d.Type().IsRegular() || slices.Contains(names, d.Name()) {
			return nil
		}
		if ignored(rel, false) || !selected(rel, o) {
			sk.Ignored++
			return nil
		}
		format, ok := extract.ForName(rel)
		if !ok {
			sk.Unsupported++
			if sk.UnsupportedByExt == nil {
				sk.UnsupportedByExt = map[string]int{}
			}
			sk.UnsupportedByExt[strings.ToLower(filepath.Ext(d.Name()))]++
			return nil
		}
		if !utf8.ValidString(rel) || utf8.RuneCountInString(rel) > syncplan.MaxSourceIDLen {
			sk.Invalid = append(sk.Invalid, rel)
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // vanished since it was listed
		}
		files = append(files, File{SourceID: rel, Path: path, Format: format, Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, sk, err
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.SourceID, b.SourceID) })
	return files, sk, nil
}

// selected applies the include and exclude globs to a source id.
func selected(rel string, o WalkOptions) bool {
	for _, g := range o.Exclude {
		if ok, _ := doublestar.Match(g, rel); ok {
			return false
		}
	}
	if len(o.Include) == 0 {
		return true
	}
	for _, g := range o.Include {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
	}
	return false
}
