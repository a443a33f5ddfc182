// Package layering owns the import rules of the module: the table of
// areas (Areas), each a set of packages at one level, and the check that
// every import points down (Check), which TestLayering runs over the
// source tree at every `go test ./...`.
//
// The levels, lowest first:
//
//	0 leaf     cerrors, api (the public request and response types),
//	           internal/ids, internal/wordvec, internal/memrelease and
//	           the index leaves: text, tokens, queries, BM25, chunking,
//	           extraction, outlines, Python-compatible formatting; the
//	           model file formats: safetensors, the WordPiece tokenizer
//	1 model    quant, vector, model and its providers
//	2 persist  the store interface, its backends and their SQL
//	3 index    the in-process full-text index, the access catalog, grep,
//	           and the snapshot files they and the engine write (index/snapfmt)
//	4 engine   internal/*: write path, search, knowledge, follow, ...
//	5 facade   the root package contextd
//	6 config   the environment read into typed values
//	7 server   the MCP server and its HTTP authentication
//	8 lab      internal/lab/*: benchmarks, load tests, evaluation sets,
//	           the embedder lab
//	9 command  cmd/contextd, the release builder (internal/release) and
//	           the docs package
//
// A non-test file may import its own area and any lower one. The test
// kits (internal/testtier, internal/fakeapi, internal/goroot,
// persist/persisttest, persist/postgres/pgtest and the corpora and
// relevance sets of the lab that tests read: internal/lab/testcorpus,
// internal/lab/kgolden, internal/lab/paraphrase) are imported by test
// files, the lab and the command only. Test files may in addition import
// every area: an integration test drives a package from above, the way a
// user does (internal/knowledge's tests open the engine, the server's run
// the load test). Go's own rule against import cycles keeps such a test
// from being part of what it tests.
//
// Besides the levels, Forbidden names modules some packages must not
// link, directly or through any import: the facade and config link
// neither mcp-go nor a database driver, so a library user or a program
// that only reads the configuration pays for neither.
//
//	vs, err := layering.Check(root, "github.com/contextd/contextd")
//	for _, v := range vs { fmt.Println(v) } // "index -> internal/follow (index.go): ..."
package layering

import (
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Area is one row of the table: packages at one level. A package belongs
// to the area with the longest matching pattern; a pattern ending in
// "/..." matches the path and everything below it.
type Area struct {
	Name     string
	Level    int
	Patterns []string
	// TestKit areas are imported only by test files, the lab and the
	// command; their own imports follow Level.
	TestKit bool
}

// Areas is the table, lowest level first.
var Areas = []Area{
	{Name: "leaf", Level: 0, Patterns: []string{
		"cerrors", "api", "internal/ids", "internal/wordvec", "internal/memrelease",
		"index/pyfmt", "index/token", "index/query", "index/bm25", "index/chunk",
		"index/extract", "index/extract/pdftest", "index/kchunk", "index/outline",
		"model/safetensors", "model/wordpiece",
	}},
	{Name: "model", Level: 1, Patterns: []string{"quant", "vector", "model/..."}},
	{Name: "persist", Level: 2, Patterns: []string{"persist/..."}},
	{Name: "index", Level: 3, Patterns: []string{"index", "index/catalog", "index/grep", "index/snapfmt"}},
	{Name: "engine", Level: 4, Patterns: []string{"internal/..."}},
	{Name: "facade", Level: 5, Patterns: []string{"."}},
	{Name: "config", Level: 6, Patterns: []string{"config/..."}},
	{Name: "server", Level: 7, Patterns: []string{"server/..."}},
	{Name: "lab", Level: 8, Patterns: []string{"internal/lab/..."}},
	{Name: "command", Level: 9, Patterns: []string{"cmd/...", "docs", "internal/release"}},
	{Name: "testkit", Level: 4, TestKit: true, Patterns: []string{
		"internal/testtier", "internal/fakeapi", "internal/goroot", "internal/layering",
		"persist/persisttest", "persist/postgres/pgtest",
		"internal/lab/testcorpus", "internal/lab/kgolden", "internal/lab/paraphrase",
	}},
}

// Forbidden maps an area to the module path prefixes its packages must
// not depend on, directly or transitively (non-test files).
var Forbidden = map[string][]string{
	"facade": {"github.com/mark3labs/mcp-go", "github.com/jackc/pgx", "modernc.org/sqlite"},
	"config": {"github.com/mark3labs/mcp-go", "github.com/jackc/pgx", "modernc.org/sqlite"},
}

// Violation is one import against the table.
type Violation struct {
	From, To string // package paths relative to the module ("." is the root)
	File     string // the importing file, relative to the module
	Rule     string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s -> %s (%s): %s", v.From, v.To, v.File, v.Rule)
}

// AreaOf returns the area of the package at rel (relative to the module,
// "." for the root), or nil when no pattern matches.
func AreaOf(rel string) *Area {
	var best *Area
	bestLen := -1
	for i := range Areas {
		for _, p := range Areas[i].Patterns {
			if n, ok := match(p, rel); ok && n > bestLen {
				best, bestLen = &Areas[i], n
			}
		}
	}
	return best
}

// match reports whether pattern matches rel and how specific it is.
func match(pattern, rel string) (int, bool) {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return len(base), rel == base || strings.HasPrefix(rel, base+"/")
	}
	return len(pattern) + 1, rel == pattern // an exact name beats a tree of the same length
}

type pkgImports struct {
	prod map[string]string // import path -> first non-test file importing it
	test map[string]string
}

// Check parses the imports of every Go file under root (the module's
// folder; testdata, hidden and underscore folders skipped) and returns
// the imports against the table, sorted.
func Check(root, module string) ([]Violation, error) {
	pkgs, err := scan(root)
	if err != nil {
		return nil, err
	}
	var out []Violation
	add := func(from, to, file, rule string) {
		out = append(out, Violation{From: from, To: to, File: file, Rule: rule})
	}
	for rel, p := range pkgs {
		from := AreaOf(rel)
		if from == nil {
			add(rel, "", "", "the package is in no area of the table: add it to layering.Areas")
			continue
		}
		check := func(imports map[string]string, test bool) {
			for imp, file := range imports {
				to, ok := strings.CutPrefix(imp, module)
				if !ok || (to != "" && to[0] != '/') {
					continue
				}
				to = strings.TrimPrefix(to, "/")
				if to == "" {
					to = "."
				}
				dst := AreaOf(to)
				switch {
				case dst == nil:
					add(rel, to, file, "the imported package is in no area of the table")
				case test:
					// Test files may import every area.
				case dst.TestKit && !from.TestKit && from.Level < 8:
					add(rel, to, file, fmt.Sprintf("%s is a test kit: only test files, the lab and the command import it", to))
				case dst.Level > from.Level:
					add(rel, to, file, fmt.Sprintf("upward: %s (level %d) may not import %s (level %d)", from.Name, from.Level, dst.Name, dst.Level))
				}
			}
		}
		check(p.prod, false)
		check(p.test, true)
	}
	for rel := range pkgs {
		a := AreaOf(rel)
		if a == nil {
			continue
		}
		bad := Forbidden[a.Name]
		if len(bad) == 0 {
			continue
		}
		for dep, via := range deps(pkgs, module, rel) {
			for _, b := range bad {
				if dep == b || strings.HasPrefix(dep, b+"/") {
					add(rel, dep, via, fmt.Sprintf("%s may not link %s, even indirectly", a.Name, b))
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Violation) int {
		return strings.Compare(a.String(), b.String())
	})
	return out, nil
}

// deps returns the non-module imports reachable from rel through non-test
// files, each with the module package that imports it.
func deps(pkgs map[string]*pkgImports, module, rel string) map[string]string {
	out := map[string]string{}
	seen := map[string]bool{}
	var walk func(rel string)
	walk = func(rel string) {
		if seen[rel] {
			return
		}
		seen[rel] = true
		p := pkgs[rel]
		if p == nil {
			return
		}
		for imp := range p.prod {
			if to, ok := strings.CutPrefix(imp, module); ok && (to == "" || to[0] == '/') {
				to = strings.TrimPrefix(to, "/")
				if to == "" {
					to = "."
				}
				walk(to)
				continue
			}
			if _, ok := out[imp]; !ok {
				out[imp] = rel
			}
		}
	}
	walk(rel)
	return out
}

// ignored reports whether f is left out of every build: its constraint
// holds neither with all tags but "ignore" set nor with none set (a
// generator behind //go:build ignore). Files of one platform count.
func ignored(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			x, err := constraint.Parse(c.Text)
			if err != nil {
				return false
			}
			all := x.Eval(func(tag string) bool { return tag != "ignore" })
			none := x.Eval(func(string) bool { return false })
			return !all && !none
		}
	}
	return false
}

// scan reads the import lists of the module's Go files by package folder.
func scan(root string) (map[string]*pkgImports, error) {
	pkgs := map[string]*pkgImports{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules") {
				return filepath.SkipDir
			}
			if p != root {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		if ignored(f) {
			return nil
		}
		relFile, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		relFile = filepath.ToSlash(relFile)
		rel := path.Dir(relFile)
		pi := pkgs[rel]
		if pi == nil {
			pi = &pkgImports{prod: map[string]string{}, test: map[string]string{}}
			pkgs[rel] = pi
		}
		m := pi.prod
		if strings.HasSuffix(name, "_test.go") {
			m = pi.test
		}
		for _, is := range f.Imports {
			imp, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: %w", relFile, err)
			}
			if _, ok := m[imp]; !ok {
				m[imp] = relFile
			}
		}
		return nil
	})
	return pkgs, err
}
