package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/contextd/contextd"
)

// version is the release this binary was built as, stamped by the release
// build (go build -ldflags "-X main.version=0.2.0"); empty otherwise, and
// then contextd.Version stands for it.
var version string

// releaseVersion is the version contextd reports: in `contextd version`,
// the start-up line and the MCP handshake.
func releaseVersion() string {
	if version != "" {
		return version
	}
	return contextd.Version
}

// buildInfo is what `contextd version` reports beyond the release: the
// module version, the source revision and the Go toolchain, read from the
// build information the go command embeds (runtime/debug.ReadBuildInfo).
type buildInfo struct {
	Module   string // module path and version: "github.com/contextd/contextd v0.1.0"
	Revision string // VCS revision, its time and whether the tree was modified; "" if unknown
	Go       string // "go1.26.8 linux/amd64"
}

// readBuildInfo reads the embedded build information. What it holds
// depends on how the binary was built: `go install module@version` records
// the module version (a pseudo-version for an untagged commit, which
// carries the revision) but no VCS settings; `go build` in a Git checkout
// records the revision in vcs.revision (unless -buildvcs=false); `go run`
// and test binaries record neither, and say (devel).
func readBuildInfo() buildInfo {
	bi := buildInfo{Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		bi.Module = "unknown (no build information)"
		return bi
	}
	bi.Go = info.GoVersion + " " + runtime.GOOS + "/" + runtime.GOARCH
	path, ver := info.Main.Path, info.Main.Version
	if path == "" {
		path = info.Path // a test binary names only its package
	}
	if ver == "" {
		ver = "(devel)"
	}
	bi.Module = strings.TrimSpace(path + " " + ver)
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		bi.Revision = rev
		var notes []string
		if t := settings["vcs.time"]; t != "" {
			notes = append(notes, t)
		}
		if settings["vcs.modified"] == "true" {
			notes = append(notes, "modified")
		}
		if len(notes) > 0 {
			bi.Revision += " (" + strings.Join(notes, ", ") + ")"
		}
	} else if rev := pseudoRevision(ver); rev != "" {
		bi.Revision = rev + " (from the pseudo-version)"
	}
	return bi
}

// pseudoRevision returns the commit prefix a Go pseudo-version ends with
// (v0.0.0-20261204135152-48ef509abcde, v1.2.4-0.20261204135152-48ef509abcde,
// optionally +incompatible or +dirty), or "" for any other version.
func pseudoRevision(v string) string {
	if i := strings.IndexByte(v, '+'); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return ""
	}
	rev, stamp := parts[len(parts)-1], parts[len(parts)-2]
	if i := strings.LastIndexByte(stamp, '.'); i >= 0 {
		stamp = stamp[i+1:]
	}
	if len(rev) != 12 || strings.Trim(rev, "0123456789abcdef") != "" ||
		len(stamp) != 14 || strings.Trim(stamp, "0123456789") != "" {
		return ""
	}
	return rev
}

// printVersion writes the answer of `contextd version`: the release on the
// first line (what scripts read), then the build information.
func printVersion(w io.Writer) {
	bi := readBuildInfo()
	rev := bi.Revision
	if rev == "" {
		rev = "unknown (built without version control information)"
	}
	fmt.Fprintf(w, "contextd %s\nmodule:   %s\nrevision: %s\ngo:       %s\n", releaseVersion(), bi.Module, rev, bi.Go)
}
