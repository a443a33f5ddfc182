package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the controlling side and the terminal
// a program writes to.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// TestIngestProgressBarUnderTerminal: on a terminal, contextd ingest
// draws a progress bar counting files ("syncing", N/M), on stderr, and
// the summary still goes to stdout.
func TestIngestProgressBarUnderTerminal(t *testing.T) {
	t.Parallel()
	master, tty := openPTY(t)
	dir := t.TempDir()
	for i := range 6 {
		if err := os.WriteFile(filepath.Join(dir, "note"+strconv.Itoa(i)+".md"), []byte("# Note "+strconv.Itoa(i)+"\n\nbody\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	screen := make(chan string, 1)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, master) // ends with EIO once the terminal closes
		screen <- b.String()
	}()
	env := map[string]string{"DB_PATH": filepath.Join(t.TempDir(), "ctx.db"), "HOME": t.TempDir()}
	var stdout bytes.Buffer
	code := run(context.Background(), []string{"ingest", dir, "--thread", "kb:notes"},
		func(k string) (string, bool) { v, ok := env[k]; return v, ok }, nil, &stdout, tty)
	tty.Close()
	out := <-screen
	if code != exitOK {
		t.Fatalf("exit %d; terminal:\n%s", code, out)
	}
	if !strings.Contains(out, "syncing") || !strings.Contains(out, "/6") {
		t.Fatalf("no progress bar counting the 6 files on the terminal:\n%q", out)
	}
	if !strings.Contains(stdout.String(), "6 files: created 6") {
		t.Fatalf("summary on stdout: %q", stdout.String())
	}
}
