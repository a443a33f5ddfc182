package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/contextd/contextd/internal/testtier"
)

// TestRelease runs the release into a temporary folder, as
// scripts/release.sh does, and checks what a user downloads: six static
// binaries of the right format and architecture, SHA256SUMS that
// verifies, bundles whose manifest validates and whose binary is the
// release's and runs, and a server.json that validates and names the
// bundles' real hashes. Release tier: six cross-compilations and links take
// minutes on two cores (seconds for links alone when the build cache is
// warm).
func TestRelease(t *testing.T) {
	testtier.Release(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"-version", "0.1.0-test", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("release exit %d: %s\n%s", code, stderr.String(), stdout.String())
	}
	t.Logf("release output:\n%s", stdout.String())

	names, err := verifyChecksums(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tg := range defaultTargets {
		want = append(want, tg.binaryName(), tg.bundleName())
		checkBinary(t, filepath.Join(dir, tg.binaryName()), tg)
		if !strings.Contains(stdout.String(), tg.binaryName()+" ") || !strings.Contains(stdout.String(), tg.bundleName()+" ") {
			t.Errorf("the release did not report the size of %s and its bundle", tg)
		}
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("SHA256SUMS lists %v, want %v", names, want)
	}

	sums := map[string]string{}
	for _, n := range names {
		sums[n], _ = fileSHA256(filepath.Join(dir, n))
	}
	ms := compileSchema(t, manifestSchemaFile)
	for _, tg := range defaultTargets {
		checkBundle(t, ms, dir, tg, tg == target{runtime.GOOS, runtime.GOARCH})
	}

	sj, err := os.ReadFile(filepath.Join(dir, "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sj))
	if err != nil {
		t.Fatal(err)
	}
	if err := compileSchema(t, serverSchemaFile).Validate(doc); err != nil {
		t.Fatalf("server.json: %v", err)
	}
	for _, p := range arr(obj(doc)["packages"]) {
		if obj(p)["registryType"] != "mcpb" {
			continue
		}
		id := obj(p)["identifier"].(string)
		name := id[strings.LastIndexByte(id, '/')+1:]
		if got := obj(p)["fileSha256"]; got != sums[name] {
			t.Errorf("server.json gives %s the SHA-256 %v, the file has %s", name, got, sums[name])
		}
	}

	// The native binary records the revision of a Git checkout.
	if head, err := exec.Command("git", "-C", "../..", "rev-parse", "HEAD").Output(); err == nil {
		bin := filepath.Join(dir, target{runtime.GOOS, runtime.GOARCH}.binaryName())
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), "\nrevision: "+strings.TrimSpace(string(head))) {
			t.Errorf("version of the native binary does not name HEAD %s:\n%s", head, out)
		}
	}
}

// checkBinary opens bin as its platform's executable format and checks
// the architecture; a Linux binary must be static (no ELF interpreter).
func checkBinary(t *testing.T, bin string, tg target) {
	t.Helper()
	switch tg.os {
	case "linux":
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatalf("%s: %v", bin, err)
		}
		defer f.Close()
		if m := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[tg.arch]; f.Machine != m {
			t.Errorf("%s: machine %v, want %v", bin, f.Machine, m)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s: has an ELF interpreter: dynamically linked", bin)
			}
		}
	case "darwin":
		f, err := macho.Open(bin)
		if err != nil {
			t.Fatalf("%s: %v", bin, err)
		}
		defer f.Close()
		if c := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[tg.arch]; f.Cpu != c {
			t.Errorf("%s: cpu %v, want %v", bin, f.Cpu, c)
		}
	case "windows":
		f, err := pe.Open(bin)
		if err != nil {
			t.Fatalf("%s: %v", bin, err)
		}
		defer f.Close()
		if m := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[tg.arch]; f.Machine != m {
			t.Errorf("%s: machine %#x, want %#x", bin, f.Machine, m)
		}
	}
}

// checkBundle opens tg's bundle: manifest.json validates, the entry point
// is the release's binary, executable; the native one is unpacked and run
// the way a host runs it (the manifest's command with ${__dirname} and
// the settings' defaults substituted).
func checkBundle(t *testing.T, s *jsonschema.Schema, dir string, tg target, native bool) {
	t.Helper()
	zr, err := zip.OpenReader(filepath.Join(dir, tg.bundleName()))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	read := func(name string) []byte {
		f, ok := files[name]
		if !ok {
			t.Fatalf("%s: no %s", tg.bundleName(), name)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	raw := read("manifest.json")
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("%s manifest.json: %v", tg.bundleName(), err)
	}
	var m struct {
		Server struct {
			EntryPoint string `json:"entry_point"`
			MCPConfig  struct {
				Command string            `json:"command"`
				Env     map[string]string `json:"env"`
			} `json:"mcp_config"`
		} `json:"server"`
		UserConfig map[string]struct {
			Default string `json:"default"`
		} `json:"user_config"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	entry := m.Server.EntryPoint
	if f, ok := files[entry]; !ok || f.Mode()&0o111 == 0 {
		t.Fatalf("%s: entry point %s missing or not executable", tg.bundleName(), entry)
	}
	inBundle := sha256.Sum256(read(entry))
	if want, _ := fileSHA256(filepath.Join(dir, tg.binaryName())); hex.EncodeToString(inBundle[:]) != want {
		t.Errorf("%s: %s is not the release's %s", tg.bundleName(), entry, tg.binaryName())
	}
	if !native {
		return
	}
	unpacked := t.TempDir()
	bin := filepath.Join(unpacked, filepath.FromSlash(entry))
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, read(entry), files[entry].Mode()); err != nil {
		t.Fatal(err)
	}
	cmd := strings.ReplaceAll(m.Server.MCPConfig.Command, "${__dirname}", unpacked)
	home := t.TempDir()
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	for name, v := range m.Server.MCPConfig.Env {
		key := strings.TrimSuffix(strings.TrimPrefix(v, "${user_config."), "}")
		env = append(env, name+"="+strings.ReplaceAll(m.UserConfig[key].Default, "${HOME}", home))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	names, err := stdioToolNames(ctx, cmd, env)
	if err != nil {
		t.Fatalf("the bundle's binary: %v", err)
	}
	if len(names) != 32 {
		t.Errorf("the bundle's binary lists %d tools, want 32", len(names))
	}
	if _, err := os.Stat(filepath.Join(home, ".mcp", "context_storage.db")); err != nil {
		t.Errorf("the bundle's default database path was not used: %v", err)
	}
}
