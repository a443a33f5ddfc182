package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// modulePath is the module whose testdata/ holds the evaluation data.
const modulePath = "github.com/contextd/contextd"

// repoData returns the path of rel (a path under the module root, such as
// testdata/cranfield) for a command started inside a clone: rel itself
// when it exists relative to the working directory, else rel under the
// nearest parent directory whose go.mod declares this module. Outside a
// clone it returns rel unchanged, so the error that follows names it.
func repoData(rel string) string {
	if _, err := os.Stat(rel); err == nil {
		return rel
	}
	dir, err := os.Getwd()
	if err != nil {
		return rel
	}
	for {
		if isModuleRoot(dir) {
			return filepath.Join(dir, rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return rel
		}
		dir = parent
	}
}

// isModuleRoot reports whether dir/go.mod declares modulePath.
func isModuleRoot(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == modulePath
		}
	}
	return false
}

// dataHint is added to an error reading evaluation data outside a clone.
const dataHint = "run the command inside a clone of github.com/contextd/contextd (the data is in testdata/), or give -data DIR"
