package sqlite

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
)

// fileRssKB sums the resident pages of the mappings of path
// (/proc/self/smaps).
func fileRssKB(t *testing.T, path string) int {
	raw, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	kb, in := 0, false
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			in = len(f) >= 6 && f[5] == path
		case in && len(f) >= 2 && f[0] == "Rss:":
			n, _ := strconv.Atoi(f[1])
			kb += n
		}
	}
	return kb
}

// ReleaseMemory unmaps the database file of idle connections (its pages
// leave the resident set), keeps the store working and the mmap setting
// in force, and does nothing to an in-memory database.
func TestReleaseMemory(t *testing.T) {
	ctx := context.Background()
	path := tempDB(t)
	s := openFile(t, path)
	es := make([]persist.Entry, 300)
	for i := range es {
		es[i] = entry(i, "t", "user", "alice")
		es[i].Text = strings.Repeat("released pages come back on demand ", 100)
	}
	insert(t, s, es, nil)
	// Reads come through the map once the pages are in the main file.
	if _, err := s.w.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	if readable(t, s) == 0 {
		t.Fatal("nothing readable")
	}
	before := fileRssKB(t, path)
	if before < 256 {
		t.Skipf("the database is not mapped here (%d KiB resident)", before)
	}
	if err := s.ReleaseMemory(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
	after := fileRssKB(t, path)
	t.Logf("database pages resident: %d KiB before the release, %d KiB after", before, after)
	if after > before/4 {
		t.Fatalf("database pages resident: %d KiB before the release, %d KiB after", before, after)
	}
	if n := readable(t, s); n == 0 {
		t.Fatal("nothing readable after the release")
	}
	var size int64
	if err := s.r.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&size); err != nil || size != defaultMmapSize {
		t.Fatalf("mmap_size after the release: %d, %v; want %d", size, err, defaultMmapSize)
	}
	if err := openMem(t).ReleaseMemory(ctx); err != nil {
		t.Fatalf("release in memory: %v", err)
	}
}
