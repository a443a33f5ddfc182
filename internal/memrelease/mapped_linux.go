//go:build linux

package memrelease

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// DropMapped takes the pages of the process's read-only mappings of the
// named files out of its resident set (MADV_DONTNEED) and returns how many
// bytes of mappings it covered. The kernel's page cache keeps the files: a
// later read faults a page back in unchanged, as a minor fault.
//
// Only mappings without write permission are touched (dropping a private
// written page would lose the write). The caller must keep every named
// file mapped until DropMapped returns: a mapping that went away between
// the read of /proc/self/maps and the madvise could have been replaced at
// the same addresses by memory that must not be dropped. The full-text
// index calls it while it holds a reader on the segments it names.
func DropMapped(paths map[string]bool) (int64, error) {
	if len(paths) == 0 {
		return 0, nil
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, fmt.Errorf("release mapped pages: %w", err)
	}
	var total int64
	sc := bufio.NewScanner(bytes.NewReader(maps))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		start, end, path, ok := parseMapsLine(sc.Bytes())
		if !ok || !paths[path] {
			continue
		}
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_DONTNEED); errno != 0 {
			return total, fmt.Errorf("release mapped pages of %s: %w", path, errno)
		}
		total += int64(end - start)
	}
	return total, sc.Err()
}

// parseMapsLine reads one line of /proc/self/maps ("start-end perms offset
// dev inode path"): the range and the path of a mapping that cannot be
// written. The path is everything after the inode, spaces included.
func parseMapsLine(line []byte) (start, end uintptr, path string, ok bool) {
	fields := make([][]byte, 0, 6)
	rest := line
	for len(fields) < 5 {
		rest = bytes.TrimLeft(rest, " ")
		i := bytes.IndexByte(rest, ' ')
		if i < 0 {
			return 0, 0, "", false
		}
		fields = append(fields, rest[:i])
		rest = rest[i:]
	}
	path = string(bytes.TrimLeft(rest, " "))
	perms := fields[1]
	if len(perms) < 2 || perms[1] != '-' || path == "" {
		return 0, 0, "", false
	}
	dash := bytes.IndexByte(fields[0], '-')
	if dash < 0 {
		return 0, 0, "", false
	}
	s, err1 := strconv.ParseUint(string(fields[0][:dash]), 16, 64)
	e, err2 := strconv.ParseUint(string(fields[0][dash+1:]), 16, 64)
	if err1 != nil || err2 != nil || e <= s {
		return 0, 0, "", false
	}
	return uintptr(s), uintptr(e), path, true
}

// ResidentKiB is the resident size, in KiB, of the process's mapping that
// starts at addr (/proc/self/smaps): what the tests of DropMapped and of
// other page releases measure.
func ResidentKiB(addr uintptr) (int, error) {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("read mappings: %w", err)
	}
	prefix := strconv.FormatUint(uint64(addr), 16) + "-"
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Bytes()
		if f := bytes.Fields(line); len(f) > 0 && !bytes.HasSuffix(f[0], []byte(":")) { // a mapping's header line
			in = bytes.HasPrefix(line, []byte(prefix))
			continue
		}
		if in && bytes.HasPrefix(line, []byte("Rss:")) {
			f := bytes.Fields(line)
			if len(f) < 2 {
				break
			}
			return strconv.Atoi(string(f[1]))
		}
	}
	return 0, fmt.Errorf("no mapping at %x", addr)
}

// FileResident is the process's file-backed resident set in bytes
// (RssFile of /proc/self/status; 0 when it cannot be read): the mapped
// pages of the binary, the database and the index segments.
func FileResident() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("RssFile:")); ok {
			f := bytes.Fields(v)
			if len(f) == 0 {
				return 0
			}
			kb, err := strconv.ParseUint(string(f[0]), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
