//go:build unix

package index

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// scratchChildEnv makes the test binary a process that opens a scratch
// index, prints its directory and waits to be killed
// (TestScratchSweptAfterKill).
const scratchChildEnv = "CONTEXTD_TEST_SCRATCH_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(scratchChildEnv) != "" {
		ix, err := Open(Options{Scratch: true})
		if err != nil || ix.scratch == "" {
			os.Exit(3)
		}
		os.Stdout.WriteString(ix.scratch + "\n")
		select {} // until killed
	}
	os.Exit(m.Run())
}

// TestScratchSweptAfterKill: a process killed while its scratch index is
// open leaves the directory, and the next index opening a scratch
// directory removes it, as it removes an older version's whose bolt file
// is not locked; a live process's directory (another index of this
// process, whose lock is another open file) and one without a lock yet
// (being created) stay.
func TestScratchSweptAfterKill(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), scratchChildEnv+"=1")
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = child.Process.Kill()
		t.Fatalf("the child opened no scratch index: %v (exit %v)", err, child.Wait())
	}
	dead := strings.TrimSpace(line)
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	if _, err := os.Stat(filepath.Join(dead, scratchLock)); err != nil || filepath.Dir(dead) != tmp {
		t.Fatalf("the killed child's scratch directory %s is not in %s with its lock: %v", dead, tmp, err)
	}
	live, err := Open(Options{Scratch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	unowned := filepath.Join(tmp, scratchPrefix+"unowned")
	if err := os.MkdirAll(filepath.Join(unowned, "fts.bleve"), 0o700); err != nil {
		t.Fatal(err)
	}
	// An older version's directory, whose process ended: its bolt file
	// is not locked.
	older := filepath.Join(tmp, scratchPrefix+"older")
	if err := os.MkdirAll(filepath.Join(older, "fts.bleve", "store"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(older, "fts.bleve", "store", "root.bolt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Fatalf("opening a scratch index left the killed process's %s", dead)
	}
	ix, err := Open(Options{Scratch: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(older); err == nil {
		t.Fatalf("opening a scratch index left an ended older version's %s", older)
	}
	for _, dir := range []string{live.scratch, ix.scratch, unowned} {
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("%s was removed: %v", dir, err)
		}
	}
	own := ix.scratch
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(own); err == nil {
		t.Fatalf("Close left its scratch directory %s", own)
	}
}
