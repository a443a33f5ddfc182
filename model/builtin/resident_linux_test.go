//go:build linux

package builtin

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/contextd/contextd/internal/memrelease"
)

// mappedRssKB is the resident size of the mapping that starts at addr.
func mappedRssKB(t *testing.T, addr uintptr) int {
	t.Helper()
	kib, err := memrelease.ResidentKiB(addr)
	if err != nil {
		t.Skip(err)
	}
	return kib
}

// dropResident on a read-only private file mapping (what the vendored
// table is in the binary) takes its whole pages out of the resident set
// and leaves the content as it was.
func TestDropResidentKeepsContent(t *testing.T) {
	want := bytes.Repeat([]byte("contextd-"), 1<<17) // 1.1 MiB
	path := filepath.Join(t.TempDir(), "table")
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, len(want), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer unix.Munmap(m)
	if !bytes.Equal(m, want) {
		t.Fatal("mapping differs from the file")
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	before := mappedRssKB(t, addr)
	dropResident(m[100:]) // an unaligned start keeps the first page
	after := mappedRssKB(t, addr)
	if before < 1000 || after > 8 {
		t.Fatalf("resident %d KiB before, %d KiB after: want all but the first page dropped", before, after)
	}
	if !bytes.Equal(m, want) {
		t.Fatal("content changed after dropResident")
	}
	dropResident(nil)
	dropResident(m[:10]) // smaller than a page: nothing to drop
}
