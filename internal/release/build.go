package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// target is one platform of the release.
type target struct{ os, arch string }

func (t target) String() string { return t.os + "/" + t.arch }

// binaryName is the file name of t's binary in the release folder.
func (t target) binaryName() string {
	if t.os == "windows" {
		return "contextd-" + t.os + "-" + t.arch + ".exe"
	}
	return "contextd-" + t.os + "-" + t.arch
}

// bundleName is the file name of t's MCP Bundle.
func (t target) bundleName() string { return "contextd-" + t.os + "-" + t.arch + ".mcpb" }

// defaultTargets are the platforms of a release.
var defaultTargets = []target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

func joinTargets(ts []target) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ",")
}

// parseTargets reads -targets: os/arch pairs of the three systems and two
// architectures a release supports, each once.
func parseTargets(s string) ([]target, error) {
	var out []target
	for _, f := range strings.Split(s, ",") {
		osName, arch, ok := strings.Cut(strings.TrimSpace(f), "/")
		t := target{osName, arch}
		if !ok || !slices.Contains(defaultTargets, t) {
			return nil, fmt.Errorf("-targets: %q is not one of %s", f, joinTargets(defaultTargets))
		}
		if slices.Contains(out, t) {
			return nil, fmt.Errorf("-targets: %s twice", t)
		}
		out = append(out, t)
	}
	return out, nil
}

// build cross-compiles cmd/contextd for t into o.out and returns the
// binary's path. CGO_ENABLED=0 makes it static (the SQLite driver is pure
// Go); -trimpath keeps the builder's paths out; -s -w drop the symbol
// table and DWARF (linux/amd64: 80.4 MB -> 65.0 MB; panics still print
// file:line from the runtime's own tables); -X main.version stamps the
// version; and
// -buildvcs=auto records the Git revision when the module is a checkout,
// overriding a GOFLAGS=-buildvcs=false in the environment.
func build(ctx context.Context, o options, t target) (string, error) {
	bin := filepath.Join(o.out, t.binaryName())
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=auto",
		"-ldflags", "-s -w -X main.version="+o.version, "-o", bin, "./cmd/contextd")
	cmd.Dir = o.module
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.os, "GOARCH="+t.arch)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %w\n%s", t, err, out)
	}
	return bin, nil
}

// fileSHA256 is the hex SHA-256 of a file.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeChecksums writes dir/SHA256SUMS over files in the format of
// sha256sum (so `sha256sum -c SHA256SUMS` verifies a download) and
// returns each file name's hash.
func writeChecksums(dir string, files []string) (map[string]string, error) {
	sums := map[string]string{}
	var b strings.Builder
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	slices.Sort(names)
	for _, n := range names {
		h, err := fileSHA256(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		sums[n] = h
		fmt.Fprintf(&b, "%s  %s\n", h, n)
	}
	return sums, os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(b.String()), 0o644)
}

// verifyChecksums checks every line of dir/SHA256SUMS against the file it
// names, as `sha256sum -c` does, and returns the names checked.
func verifyChecksums(dir string) ([]string, error) {
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(want) != 64 || name == "" || strings.ContainsAny(name, `/\`) {
			return nil, fmt.Errorf("SHA256SUMS: malformed line %q", sc.Text())
		}
		got, err := fileSHA256(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		if got != want {
			return nil, fmt.Errorf("SHA256SUMS: %s is %s, the list says %s", name, got, want)
		}
		names = append(names, name)
	}
	return names, sc.Err()
}

// reportSizes prints each file's size in MB (10^6 bytes).
func reportSizes(w io.Writer, files []string) error {
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%-32s %6.1f MB\n", filepath.Base(f), float64(st.Size())/1e6)
	}
	return nil
}
