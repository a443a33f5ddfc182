package main

import (
	"archive/zip"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
)

const modulePath = "github.com/contextd/contextd"

// TestGoInstallFromModuleProxy publishes this module's files, as they are
// in the working tree, to a module proxy on the file system under a
// pseudo-version, and runs `go install module/cmd/contextd@version` with
// an empty GOPATH and module cache: the module must build from its own
// files and its go.sum alone (no replace directive, nothing outside it).
// The dependencies come from this machine's module cache, which is itself
// a proxy on disk, so no network is needed (nor the checksum database). The binary must report the
// module version, the revision the pseudo-version carries and the Go
// version, and list its 32 tools. Release tier: with -trimpath the packages
// are mostly in the build cache already (the release's linux/amd64 build
// compiles the same), otherwise a full build takes minutes.
func TestGoInstallFromModuleProxy(t *testing.T) {
	testtier.Release(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	version, when := pseudoVersion(t, root)
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	if err := publishModule(root, filepath.Join(proxy, modulePath, "@v"), version, when); err != nil {
		t.Fatal(err)
	}
	realCache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	deps := filepath.Join(strings.TrimSpace(string(realCache)), "cache", "download")
	bin := filepath.Join(tmp, "bin")
	work := filepath.Join(tmp, "elsewhere") // outside any module
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "install", modulePath+"/cmd/contextd@"+version)
	cmd.Dir = work
	cmd.Env = append(os.Environ(),
		"GOPATH="+filepath.Join(tmp, "gopath"),
		"GOMODCACHE="+filepath.Join(tmp, "modcache"),
		"GOBIN="+bin,
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(deps),
		// Neither this pseudo-version nor (offline) any dependency can be
		// looked up in the checksum database.
		"GOSUMDB=off",
		"GOFLAGS=-mod=mod -trimpath",
		"GOTOOLCHAIN=local",
		"CGO_ENABLED=0",
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	exe := filepath.Join(bin, "contextd")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	out, err := exec.Command(exe, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	rev := version[strings.LastIndexByte(version, '-')+1:]
	for _, want := range []string{
		"module:   " + modulePath + " " + version + "\n",
		"revision: " + rev + " (from the pseudo-version)\n",
		"go:       " + runtime.Version() + " ",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("version of the installed binary lacks %q:\n%s", want, out)
		}
	}
	home := t.TempDir()
	names, err := stdioToolNames(ctx, exe, []string{"HOME=" + home, "DB_PATH=" + filepath.Join(home, "ctx.db"), "PATH=" + os.Getenv("PATH")})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 32 {
		t.Errorf("the installed binary lists %d tools, want 32", len(names))
	}
}

// pseudoVersion is the Go pseudo-version of the checkout's HEAD commit
// (v0.0.0-yyyymmddhhmmss-abcdefabcdef, what `go install ...@commit` of an
// untagged commit resolves to), or a fixed one outside Git.
func pseudoVersion(t *testing.T, root string) (string, time.Time) {
	out, err := exec.Command("git", "-C", root, "log", "-1", "--format=%H %ct").Output()
	if err != nil {
		when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		return "v0.0.0-20260101000000-000000000000", when
	}
	var hash string
	var unix int64
	if _, err := fmt.Sscan(string(out), &hash, &unix); err != nil || len(hash) < 12 {
		t.Fatalf("git log: %q %v", out, err)
	}
	when := time.Unix(unix, 0).UTC()
	return "v0.0.0-" + when.Format("20060102150405") + "-" + hash[:12], when
}

// publishModule writes version of the module at root into dir, a module
// proxy's @v folder: list, .info, .mod and the .zip of the module's
// files. The files are those Git tracks or would track (the working
// tree, untracked files not ignored included; outside Git, every file),
// less what a module zip leaves out: .git, vendor folders and folders
// with their own go.mod.
func publishModule(root, dir, version string, when time.Time) error {
	files, err := moduleFiles(root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	info := fmt.Sprintf(`{"Version":%q,"Time":%q}`, version, when.Format(time.RFC3339))
	for name, data := range map[string][]byte{"list": []byte(version + "\n"), version + ".info": []byte(info), version + ".mod": gomod} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	f, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			f.Close()
			return err
		}
		w, err := zw.Create(modulePath + "@" + version + "/" + rel)
		if err == nil {
			_, err = w.Write(data)
		}
		if err != nil {
			f.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// moduleFiles lists the module's regular files, slash-separated and
// relative to root.
func moduleFiles(root string) ([]string, error) {
	var candidates []string
	if out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output(); err == nil {
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" {
				candidates = append(candidates, p)
			}
		}
	} else {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				candidates = append(candidates, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var files []string
	for _, rel := range candidates {
		st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil || !st.Mode().IsRegular() { // deleted in the working tree, or a symlink
			continue
		}
		if inOtherModule(root, rel) {
			continue
		}
		files = append(files, rel)
	}
	return files, nil
}

// inOtherModule reports whether rel lies in a vendor folder or under a
// folder (below root) with its own go.mod.
func inOtherModule(root, rel string) bool {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if parts[i-1] == "vendor" {
			return true
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(strings.Join(parts[:i], "/")), "go.mod")); err == nil {
			return true
		}
	}
	return false
}
