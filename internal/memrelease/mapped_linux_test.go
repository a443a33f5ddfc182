//go:build linux

package memrelease

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"
)

func residentKiB(t *testing.T, addr uintptr) int {
	t.Helper()
	kib, err := ResidentKiB(addr)
	if err != nil {
		t.Fatal(err)
	}
	return kib
}

func TestDropMapped(t *testing.T) {
	const size = 8 << 20
	dir := t.TempDir()
	path := filepath.Join(dir, "seg with space.zap")
	want := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	// A writable private mapping of the same file is never dropped.
	w, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(w)
	w[0] = 'X'
	var sum int
	for i := 0; i < size; i += 4096 {
		sum += int(m[i]) + int(w[i])
	}
	addr := uintptr(unsafe.Pointer(&m[0]))
	waddr := uintptr(unsafe.Pointer(&w[0]))
	if kib := residentKiB(t, addr); kib < size>>10 {
		t.Fatalf("before: %d KiB resident, want %d", kib, size>>10)
	}
	n, err := DropMapped(map[string]bool{path: true})
	if err != nil {
		t.Fatal(err)
	}
	if n != size {
		t.Fatalf("covered %d bytes, want %d (the read-only mapping only)", n, size)
	}
	if kib := residentKiB(t, addr); kib > 64 {
		t.Fatalf("after: %d KiB resident, want about 0", kib)
	}
	if kib := residentKiB(t, waddr); kib < size>>10 {
		t.Fatalf("writable mapping: %d KiB resident after, want %d (untouched)", kib, size>>10)
	}
	if !bytes.Equal(m, want) || w[0] != 'X' {
		t.Fatal("contents changed")
	}
	if n, err := DropMapped(map[string]bool{filepath.Join(dir, "other"): true}); err != nil || n != 0 {
		t.Fatalf("unmapped file: %d, %v", n, err)
	}
	if sum == 0 {
		t.Fatal("read nothing")
	}
}

func TestParseMapsLine(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
		path string
	}{
		{"7f0000000000-7f0000001000 r--s 00000000 fd:01 123   /a/b c.zap", true, "/a/b c.zap"},
		{"7f0000000000-7f0000001000 r--p 00000000 fd:01 123 /x", true, "/x"},
		{"7f0000000000-7f0000001000 rw-p 00000000 fd:01 123 /x", false, ""},
		{"7f0000000000-7f0000001000 r--p 00000000 00:00 0 ", false, ""},
		{"7f0000001000-7f0000000000 r--p 00000000 fd:01 123 /x", false, ""},
		{"garbage", false, ""},
		{"zz-7f r--p 0 fd:01 1 /x", false, ""},
	} {
		_, _, path, ok := parseMapsLine([]byte(c.line))
		if ok != c.ok || path != c.path {
			t.Errorf("%q: %q %v, want %q %v", c.line, path, ok, c.path, c.ok)
		}
	}
}
