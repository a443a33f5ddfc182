package contextd

import (
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
// and forward, and its public types are its own. These bounds keep it so.
const (
	// maxRootLines bounds the root's non-test lines. The work lives in
	// the packages below (internal/retrieve, internal/knowledge,
	// internal/write, ...); what remains is the public types with their
	// documentation and the methods that forward to them.
	maxRootLines = 3400
	// maxRootFuncLines bounds one root function, its body included.
	maxRootFuncLines = 60
)

// TestRootDelegates checks the facade's shape: the root's non-test
// lines, the length of each function, and that no exported type is, or
// has a field of, a type of an internal package (a library user cannot
// see an internal type's fields in the documentation; the root defines
// the type and converts at the boundary).
func TestRootDelegates(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
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
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		internal := internalImports(f)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if n := fset.Position(d.End()).Line - fset.Position(d.Pos()).Line + 1; n > maxRootFuncLines {
					t.Errorf("%s: %s is %d lines, more than %d: move its work below the root", fset.Position(d.Pos()), d.Name.Name, n, maxRootFuncLines)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					if pkg := usesInternal(ts.Type, internal); pkg != "" {
						t.Errorf("%s: exported type %s is or holds a type of %s: define it in the root and convert", fset.Position(ts.Pos()), ts.Name.Name, pkg)
					}
				}
			}
		}
	}
	if lines > maxRootLines {
		t.Errorf("the root package has %d non-test lines, more than %d: move work below it", lines, maxRootLines)
	}
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
