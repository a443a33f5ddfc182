//go:build linux

package builtin

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mappedRssKB is the resident size of the mapping that starts at addr
// (/proc/self/smaps).
func mappedRssKB(t *testing.T, addr uintptr) int {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	prefix := fmt.Sprintf("%x-", addr)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, prefix) {
			in = true // the first Rss line after the header is the mapping's
			continue
		}
		if in && strings.HasPrefix(line, "Rss:") {
			kb, _ := strconv.Atoi(strings.Fields(line)[1])
			return kb
		}
	}
	t.Fatalf("mapping at %x not found", addr)
	return 0
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
