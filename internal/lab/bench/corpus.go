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

// Corpus is the text of the entries and where it came from.
type Corpus struct {
	Name  string   // "cranfield" or "go-doc-comments"
	Texts []string // one entry each
}

// ErrNoCorpus reports that no corpus large enough was found.
var ErrNoCorpus = errors.New("no corpus")

// LoadCorpus returns size texts: the Cranfield documents when size fits in
// them and dataDir holds cranfield/cran.all.1400 (or is that folder),
// otherwise the doc-comment paragraphs of the Go source tree.
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
				return &Corpus{Name: "cranfield", Texts: texts[:size]}, nil
			}
			break
		}
	}
	texts, err := testcorpus.ReadParagraphs(size) // not kept process-wide: the bench drops it once stored
	root := filepath.Join(goroot.Dir(), "src")
	if err != nil {
		return nil, fmt.Errorf("%w: reading the Go source tree at %s: %v (install Go, set GOROOT, or use a size Cranfield covers with -data)", ErrNoCorpus, root, err)
	}
	if len(texts) < size {
		return nil, fmt.Errorf("%w: the Go source tree at %s holds %d doc-comment paragraphs, fewer than the %d entries asked for", ErrNoCorpus, root, len(texts), size)
	}
	return &Corpus{Name: "go-doc-comments", Texts: texts}, nil
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
