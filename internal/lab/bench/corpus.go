package bench

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextd/contextd/internal/goroot"
	"github.com/contextd/contextd/internal/lab/testcorpus"
)

// Threads is the number of threads the entries are spread over (the
// issue's measurements used eight).
const Threads = 8

// Corpus is the text of the entries and where it came from. The first
// entries are real texts; above the Go tree's paragraphs, entries are
// composed on demand from its sentences (compose.go), so the bench never
// holds more than the real texts and the sentence pool. Drop releases
// both before memory is measured.
type Corpus struct {
	// Name is "cranfield", "go-doc-comments", or
	// "go-doc-comments+composed" when entries are composed.
	Name   string
	size   int
	nReal  int      // how many of the size entries are real texts
	real   []string // the real texts, entries 0..nReal-1 (nil once dropped)
	pool   []string // the sentences composed entries draw from
	loaded bool
}

// Len is the number of entries.
func (c *Corpus) Len() int { return c.size }

// Composed is the number of entries composed from sentences (the last
// ones).
func (c *Corpus) Composed() int { return c.size - c.nReal }

// Text is the text of entry i, 0 <= i < Len. Entry i's text depends only
// on i and the Go tree, not on the size asked for. It panics after Drop.
func (c *Corpus) Text(i int) string {
	if !c.loaded {
		panic("bench: Corpus.Text after Drop")
	}
	if i < c.nReal {
		return c.real[i]
	}
	return compose(c.pool, i)
}

// Drop releases the texts and the sentence pool; Len and Composed stay.
func (c *Corpus) Drop() { c.real, c.pool, c.loaded = nil, nil, false }

// Loaded reports whether Text may be called (not dropped).
func (c *Corpus) Loaded() bool { return c.loaded }

// ErrNoCorpus reports that no corpus large enough was found.
var ErrNoCorpus = errors.New("no corpus")

// MaxSize is the largest corpus LoadCorpus serves: composition has no
// natural end, and a size beyond it is taken for a mistake (10M entries
// of about 320 bytes are 3 GB of text, ten times the 1M the acceptance
// targets are measured at).
const MaxSize = 10_000_000

// LoadCorpus returns a corpus of size texts: the Cranfield documents when
// size fits in them and dataDir holds cranfield/cran.all.1400 (or is
// that folder), otherwise the doc-comment paragraphs of the Go source
// tree, followed by entries composed from its sentences when size
// exceeds them (see the package comment).
func LoadCorpus(dataDir string, size int) (*Corpus, error) {
	if size < 1 {
		return nil, fmt.Errorf("size must be at least 1, got %d", size)
	}
	if dataDir != "" {
		for _, p := range []string{filepath.Join(dataDir, "cranfield", "cran.all.1400"), filepath.Join(dataDir, "cran.all.1400")} {
			texts, err := readCranfield(p)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if len(texts) >= size {
				return &Corpus{Name: "cranfield", size: size, nReal: size, real: texts[:size], loaded: true}, nil
			}
			break
		}
	}
	root := filepath.Join(goroot.Dir(), "src")
	if size > MaxSize {
		return nil, fmt.Errorf("%w: the Go source tree's doc-comment paragraphs and the entries composed from its sentences stop at MaxSize, %d, fewer than %d", ErrNoCorpus, MaxSize, size)
	}
	texts, err := testcorpus.ReadParagraphsUpTo(size) // not kept process-wide: the bench drops it once stored
	if err != nil {
		return nil, fmt.Errorf("%w: reading the Go source tree at %s: %v (install Go, set GOROOT, or use a size Cranfield covers with -data)", ErrNoCorpus, root, err)
	}
	c := &Corpus{Name: "go-doc-comments", size: size, nReal: len(texts), real: texts, loaded: true}
	if len(texts) == size {
		return c, nil
	}
	// The sentences are substrings of the paragraphs: the pool adds its
	// 16-byte headers (about 2 MiB) to the paragraphs' text.
	c.pool = testcorpus.SentencesOf(texts)
	if len(c.pool) < minPool {
		return nil, fmt.Errorf("%w: the Go source tree at %s holds %d doc-comment paragraphs and %d sentences to compose more from, fewer than the %d sentences composition needs for %d entries", ErrNoCorpus, root, len(texts), len(c.pool), minPool, size)
	}
	c.Name = "go-doc-comments+composed"
	return c, nil
}

// readCranfield reads the title and abstract (.T and .W fields) of each
// record of cran.all.1400.
func readCranfield(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var texts []string
	var cur strings.Builder
	field := ""
	flush := func() {
		if s := strings.Join(strings.Fields(cur.String()), " "); s != "" {
			texts = append(texts, s)
		}
		cur.Reset()
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ".I "):
			flush()
			field = ""
		case len(line) == 2 && line[0] == '.':
			field = line[1:]
		case field == "T" || field == "W":
			cur.WriteString(line)
			cur.WriteByte(' ')
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return texts, nil
}

// Entry is the store_context_batch item of the i-th text: the structure
// every filter of the bench selects on (see the package comment).
func Entry(i int, text string) map[string]any {
	status := []string{"active", "done"}[i%2]
	if i%1000 == 7 {
		status = "blocked"
	}
	return map[string]any{
		"thread_id": fmt.Sprintf("bench-%d", i%Threads),
		"source":    []string{"agent", "user", "agent"}[i%3],
		"text":      text,
		"tags":      []any{fmt.Sprintf("topic-%d", i%20), "bench"},
		"metadata": map[string]any{
			"status":   status,
			"priority": i % 10,
			"seq":      i,
		},
		"deduplicate": false,
	}
}
