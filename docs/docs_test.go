package docs_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository root, seen from this package.
const root = ".."

// markdownFiles are the files whose links are checked: the README and
// every Markdown file under docs/ and testdata/.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join(root, "README.md")}
	for _, dir := range []string{".", filepath.Join(root, "testdata")} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".md") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

var (
	linkRe   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeRe   = regexp.MustCompile("`[^`]*`")
	slugDrop = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// slug is GitHub's anchor of a heading text.
func slug(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.NewReplacer("`", "").Replace(h)
	return strings.ReplaceAll(slugDrop.ReplaceAllString(h, ""), " ", "-")
}

// scan returns the links of a Markdown text outside code blocks and code
// spans, and the anchors of its headings.
func scan(text string) (links []string, anchors map[string]bool) {
	anchors = map[string]bool{}
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		if strings.HasPrefix(line, "#") {
			h := strings.TrimLeft(line, "#")
			a := slug(h)
			for i := 1; anchors[a]; i++ { // GitHub numbers repeated headings
				a = slug(h) + "-" + string(rune('0'+i))
			}
			anchors[a] = true
		}
		for _, m := range linkRe.FindAllStringSubmatch(codeRe.ReplaceAllString(line, ""), -1) {
			links = append(links, m[1])
		}
	}
	return links, anchors
}

// TestLinksResolve: every relative link of the README and docs/ names a
// file or folder inside the repository, and every #anchor a heading of
// its target.
func TestLinksResolve(t *testing.T) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	anchorsOf := map[string]map[string]bool{}
	read := func(p string) (string, map[string]bool) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		links, anchors := scan(string(b))
		anchorsOf[p] = anchors
		return strings.Join(links, "\n"), anchors
	}
	checked := 0
	for _, file := range markdownFiles(t) {
		linkText, own := read(file)
		if linkText == "" {
			continue
		}
		for _, link := range strings.Split(linkText, "\n") {
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			checked++
			target, anchor, _ := strings.Cut(link, "#")
			anchors := own
			if target != "" {
				p := filepath.Join(filepath.Dir(file), filepath.FromSlash(target))
				abs, err := filepath.Abs(p)
				if err != nil || (abs != absRoot && !strings.HasPrefix(abs, absRoot+string(filepath.Separator))) {
					t.Errorf("%s: link %q leaves the repository", file, link)
					continue
				}
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s: link %q: %v", file, link, err)
					continue
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(p, ".md") {
					t.Errorf("%s: link %q: an anchor into a file that is not Markdown", file, link)
					continue
				}
				if anchors = anchorsOf[p]; anchors == nil {
					_, anchors = read(p)
				}
			}
			if anchor != "" && !anchors[anchor] {
				t.Errorf("%s: link %q: no heading with anchor #%s", file, link, anchor)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d relative links checked: the scan is broken", checked)
	}
}

// TestNothingOutsideRepository: no file of the repository refers to the
// folder beside the clone that earlier versions read data and documents
// from.
func TestNothingOutsideRepository(t *testing.T) {
	needle := []byte(".." + "/shared")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 8<<20 || !info.Mode().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if i := bytes.Index(b, needle); i >= 0 {
			line := bytes.Count(b[:i], []byte("\n")) + 1
			t.Errorf("%s:%d refers to %s", p, line, needle)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadme: the README stays a short guide, and its library example is
// the body of Example (example_test.go), which go test
// compiles and runs.
func TestReadme(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(readme, []byte("\n")); n > 300 {
		t.Errorf("README.md has %d lines; keep it at most 300 and move detail into docs/", n)
	}
	src, err := os.ReadFile(filepath.Join(root, "example_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "// README-EXAMPLE-BEGIN\n")
	body, _, ok2 := strings.Cut(body, "\t// README-EXAMPLE-END")
	if !ok || !ok2 {
		t.Fatal("example_test.go: README-EXAMPLE markers not found")
	}
	var want strings.Builder
	for _, line := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		want.WriteString(strings.TrimPrefix(line, "\t") + "\n")
	}
	if !strings.Contains(string(readme), "```go\n"+want.String()+"```") {
		t.Errorf("README.md's library example differs from Example in example_test.go; copy it again:\n%s", want.String())
	}
}
