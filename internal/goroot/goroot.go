// Package goroot finds the Go installation whose source tree and
// documentation the tests, benchmarks and corpus tools read: the GOROOT
// environment variable, else what `go env GOROOT` says. (runtime.GOROOT,
// deprecated since Go 1.24, names the tree the binary was built from,
// which need not exist where it runs.)
//
//	src := filepath.Join(goroot.Dir(), "src")
package goroot

import (
	"os"
	"os/exec"
	"strings"
	"sync"
)

var (
	once sync.Once
	dir  string
)

// Dir returns the Go installation's folder, or "" when there is none.
func Dir() string {
	once.Do(func() {
		if dir = os.Getenv("GOROOT"); dir != "" {
			return
		}
		if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
			dir = strings.TrimSpace(string(out))
		}
	})
	return dir
}
