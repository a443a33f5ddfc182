package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/contextd/contextd/internal/compress"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
	"github.com/contextd/contextd/persist/sqlite"
)

// floatDB writes n entries with one random built-in-sized float32 vector
// each straight through the store (quicker than embedding them), as a
// server with ENABLE_EMBEDDING_COMPRESSION=false would have stored them.
func floatDB(t *testing.T, db string, n int) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	em := &builtin.Embedder{}
	if err := st.SetEmbeddingModel(ctx, persist.EmbeddingModel{Model: em.Model(), Dim: em.Dim()}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 1; i <= n; i += 1000 {
		err := st.Write(ctx, func(tx persist.Tx) error {
			for j := i; j < min(i+1000, n+1); j++ {
				e := persisttest.NewEntry(j, "t", "user", "local")
				if err := tx.Insert(ctx, &e, nil); err != nil {
					return err
				}
				v := make([]float32, em.Dim())
				for k := range v {
					v[k] = float32(rng.NormFloat64())
				}
				if err := tx.AddEmbeddings(ctx, e.ID, persisttest.Embeddings(em.Dim(), v)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func forms(t *testing.T, db string) persist.VectorForms {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f, err := st.VectorForms(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// contextd runs the binary with env and returns its exit code and stderr.
func contextdRun(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader("")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String()
}

// TestMigrateCompressKill_C14: over a float32 database the default
// configuration (compression on) exits 78 naming `contextd migrate
// compress`; a compression killed with SIGKILL in the middle leaves a
// database the server still refuses with that message, and running the
// migration again finishes the rest, after which the server starts.
// Decompressing then lets a server with compression off start, and one
// with it on exits 78 again.
func TestMigrateCompressKill_C14(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "ctx.db")
	n := 3000
	floatDB(t, db, n)
	env := []string{"DB_PATH=" + db, "HOME=" + dir, "ENABLE_SUMMARY_GENERATION=false", "ENABLE_RERANKING=false", "ENABLE_FTS=false",
		"COMPRESSION_KEEP_FLOAT=false"} // codes only: each chunk in exactly one form

	code, stderr := contextdRun(t, env)
	if code != exitConfig || !strings.Contains(stderr, "`"+compress.CompressCommand+"`") {
		t.Fatalf("serve over float32 vectors: exit %d, stderr %q", code, stderr)
	}

	cmd := exec.Command(binary, "migrate", "compress")
	cmd.Env = env
	cmd.Stdout = io.Discard
	stderr2, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The kill lands when the migration reports its first committed
	// batch of 200 entries (the line after the header): polling the
	// database for the first code instead raced the migration, and under
	// the race detector the poll was slow enough to miss all 15 batches.
	lines := bufio.NewScanner(stderr2)
	for seen := 0; seen < 2 && lines.Scan(); seen++ {
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_, _ = io.Copy(io.Discard, stderr2) // to its end: the killed process closed it
	_ = cmd.Wait()
	after := forms(t, db)
	t.Logf("killed with %d of %d chunks compressed", after.Code, after.Chunks)
	if after.Code == 0 || after.Code == after.Chunks {
		t.Fatalf("the kill did not land mid-migration: %+v", after)
	}
	if after.Chunks != n || after.Float+after.Code != n {
		t.Fatalf("a chunk was lost or kept both forms mid-migration: %+v", after)
	}
	code, stderr = contextdRun(t, env)
	if code != exitConfig || !strings.Contains(stderr, "`"+compress.CompressCommand+"`") {
		t.Fatalf("serve over a half-compressed database: exit %d, stderr %q", code, stderr)
	}

	code, stderr = contextdRun(t, env, "migrate", "compress")
	if code != exitOK || !strings.Contains(stderr, "chunk vectors, ") {
		t.Fatalf("resumed compress: exit %d, stderr %q", code, stderr)
	}
	if f := forms(t, db); f.Code != n || f.Float != 0 {
		t.Fatalf("after the resumed compress: %+v", f)
	}
	if code, stderr = contextdRun(t, env); code != exitOK {
		t.Fatalf("serve after compress: exit %d, stderr %q", code, stderr)
	}

	off := append(env, "ENABLE_EMBEDDING_COMPRESSION=false")
	code, stderr = contextdRun(t, off)
	if code != exitConfig || !strings.Contains(stderr, "`"+compress.DecompressCommand+"`") {
		t.Fatalf("compression off over codes: exit %d, stderr %q", code, stderr)
	}
	if code, stderr = contextdRun(t, env, "migrate", "decompress"); code != exitConfig {
		t.Fatalf("decompress with compression still on: exit %d, stderr %q", code, stderr)
	}
	if code, stderr = contextdRun(t, off, "migrate", "decompress"); code != exitOK {
		t.Fatalf("decompress: exit %d, stderr %q", code, stderr)
	}
	if code, stderr = contextdRun(t, off); code != exitOK {
		t.Fatalf("serve after decompress: exit %d, stderr %q", code, stderr)
	}
	if code, _ = contextdRun(t, env); code != exitConfig {
		t.Fatalf("compression on over decompressed vectors: exit %d", code)
	}
}
