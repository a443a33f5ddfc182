// Command release builds a contextd release into a folder (scripts/release.sh
// runs it):
//
//	go run ./internal/release [-version 0.1.0] [-targets linux/amd64,...] DIR
//
// It cross-compiles static binaries (CGO_ENABLED=0, -trimpath, symbol
// tables stripped, the version stamped with -ldflags -X main.version and
// the source revision recorded with -buildvcs) for linux, darwin and
// windows on amd64 and arm64; packs one MCP Bundle (.mcpb) a platform for
// Claude Desktop and other bundle hosts; writes server.json, the MCP
// registry's description of the bundles and the container image; writes
// SHA256SUMS over the binaries and bundles; reports every size; and runs
// the binary of this machine once: `version`, then initialize and
// tools/list over stdio, which must list exactly the tools the server
// package defines.
//
// It lives under internal/ so nothing outside this module can import it,
// and nothing in the engine does: it imports the server package only to
// know the tools a bundle declares.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/contextd/contextd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: go run ./internal/release [-version V] [-targets os/arch,...] [-module DIR] DIR

Builds the release into DIR (created if missing): the binaries
contextd-OS-ARCH[.exe], the bundles contextd-OS-ARCH.mcpb, server.json and
SHA256SUMS; then runs the binary of this machine (version, tools/list).
`

// options are the release's flags.
type options struct {
	out     string   // the release folder
	version string   // the version stamped and declared
	targets []target // the platforms built
	module  string   // the module root (the folder with go.mod)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	version := fs.String("version", contextd.Version, "the version to stamp and declare")
	targets := fs.String("targets", joinTargets(defaultTargets), "comma-separated os/arch pairs to build")
	module := fs.String("module", "", "the module root (default: found from the working directory)")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		if err != nil {
			fmt.Fprintf(stderr, "release: %v\n", err)
		}
		fmt.Fprint(stderr, usage)
		return 2
	}
	o := options{out: fs.Arg(0), version: strings.TrimPrefix(*version, "v"), module: *module}
	var err error
	if o.targets, err = parseTargets(*targets); err != nil {
		fmt.Fprintf(stderr, "release: %v\n", err)
		return 2
	}
	if !validVersion(o.version) {
		fmt.Fprintf(stderr, "release: -version %q: want a version such as 0.1.0 or 0.2.0-rc.1\n", *version)
		return 2
	}
	if o.module == "" {
		if o.module, err = moduleRoot(); err != nil {
			fmt.Fprintf(stderr, "release: %v\n", err)
			return 1
		}
	}
	if err := release(ctx, o, stdout); err != nil {
		fmt.Fprintf(stderr, "release: %v\n", err)
		return 1
	}
	return 0
}

// release builds everything into o.out and checks the native binary.
func release(ctx context.Context, o options, stdout io.Writer) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	tools := declaredTools()
	var files []string // what SHA256SUMS covers
	bundles := map[target]string{}
	for _, t := range o.targets {
		bin, err := build(ctx, o, t)
		if err != nil {
			return err
		}
		files = append(files, bin)
		b, err := writeBundle(o, t, bin, tools)
		if err != nil {
			return err
		}
		files = append(files, b)
		bundles[t] = b
	}
	sums, err := writeChecksums(o.out, files)
	if err != nil {
		return err
	}
	sj, err := serverJSON(o.version, o.targets, func(t target) string { return sums[filepath.Base(bundles[t])] })
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, "server.json"), sj, 0o644); err != nil {
		return err
	}
	if err := reportSizes(stdout, files); err != nil {
		return err
	}
	native := target{runtime.GOOS, runtime.GOARCH}
	for _, t := range o.targets {
		if t != native {
			continue
		}
		bin := filepath.Join(o.out, t.binaryName())
		got, err := smoke(ctx, bin, o.version, toolNames(tools))
		if err != nil {
			return fmt.Errorf("%s: %w", t.binaryName(), err)
		}
		fmt.Fprintf(stdout, "%s: %s; tools/list: %d tools\n", t.binaryName(), got.versionLine, got.tools)
		return nil
	}
	fmt.Fprintf(stdout, "no binary for this machine (%s) was built; none was run\n", native)
	return nil
}

// moduleRoot is the folder of the go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory; run from the module or pass -module")
		}
		dir = parent
	}
}

// validVersion accepts a semantic version without the leading v: digits
// and dots, then an optional -pre-release and +build made of [0-9A-Za-z.-].
func validVersion(v string) bool {
	core, rest, _ := strings.Cut(v, "-")
	if i := strings.IndexByte(core, '+'); i >= 0 {
		core, rest = core[:i], core[i+1:]
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return strings.Trim(rest, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.-+") == ""
}
