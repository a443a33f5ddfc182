package contextd

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The root package is a facade: its methods check the caller, validate
// and forward, and its public types are package api's. These bounds keep
// it so.
const (
	// maxRootLines bounds the root's non-test lines. The work lives in
	// the packages below (internal/retrieve, internal/knowledge,
	// internal/write, ...); what remains is the public types with their
	// documentation and the methods that forward to them.
	maxRootLines = 1915
	// maxRootFuncLines bounds one root function, its body included.
	maxRootFuncLines = 60
)

// TestRootDelegates checks the facade's shape: the root's non-test
// lines, the length of each function, and that no exported type is, or
// has a field of, a type of an internal package (a library user cannot
// see an internal type's fields in the documentation). The public types
// live in package api; the root's aliases of them are allowed.
func TestRootDelegates(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines += strings.Count(string(src), "\n")
		problems, err := facadeProblems(name, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Error(p)
		}
	}
	if lines > maxRootLines {
		t.Errorf("the root package has %d non-test lines, more than %d: move work below it", lines, maxRootLines)
	}
}

// TestFacadeProblemsFinds: the check flags an alias and a field of an
// internal type and a long function, and lets an alias of package api,
// an unexported internal field and a short function through.
func TestFacadeProblemsFinds(t *testing.T) {
	src := `package contextd
import (
	"github.com/contextd/contextd/api"
	"github.com/contextd/contextd/internal/request"
)
type Filter = request.Filter
type StoreRequest = api.StoreRequest
type Holder struct { F request.Filter; f request.Filter }
type quiet = request.Filter
func short() {}
func long() {` + strings.Repeat("\n", maxRootFuncLines) + `}
`
	got, err := facadeProblems("x.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Filter is or holds", "Holder is or holds", "long is"}
	if len(got) != len(want) {
		t.Fatalf("problems %q, want %d", got, len(want))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("problem %d: %q, want %q", i, got[i], w)
		}
	}
}

// facadeProblems lists the functions over maxRootFuncLines and the
// exported types that are or hold an internal package's type in one
// root file.
func facadeProblems(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	internal := internalImports(f)
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if n := fset.Position(d.End()).Line - fset.Position(d.Pos()).Line + 1; n > maxRootFuncLines {
				out = append(out, fmt.Sprintf("%s: %s is %d lines, more than %d: move its work below the root", fset.Position(d.Pos()), d.Name.Name, n, maxRootFuncLines))
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok || !ts.Name.IsExported() {
					continue
				}
				if pkg := usesInternal(ts.Type, internal); pkg != "" {
					out = append(out, fmt.Sprintf("%s: exported type %s is or holds a type of %s: define it in package api", fset.Position(ts.Pos()), ts.Name.Name, pkg))
				}
			}
		}
	}
	return out, nil
}

// internalImports maps the names of f's imports of internal packages to
// their paths.
func internalImports(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		if !strings.Contains(path, "/internal/") {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		out[name] = path
	}
	return out
}

// usesInternal returns the internal package that a type expression
// names, in an alias, a definition or an exported struct field.
func usesInternal(expr ast.Expr, internal map[string]string) string {
	found := ""
	ast.Inspect(expr, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			// Unexported fields are the root's own business.
			if len(n.Names) > 0 && !n.Names[0].IsExported() {
				return false
			}
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && internal[id.Name] != "" && found == "" {
				found = internal[id.Name]
			}
		}
		return found == ""
	})
	return found
}
