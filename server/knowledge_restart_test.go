package server_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/model/hashembed"
)

// kSlowEmbedder is the hashing embedder with a fixed cost per call, so a
// kill lands while ingestion is still running.
type kSlowEmbedder struct{ *hashembed.Embedder }

func (s kSlowEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	time.Sleep(5 * time.Millisecond) // not a wait: the provider's latency
	return s.Embedder.Embed(ctx, texts)
}

const kRestartFiles = 200

// TestKnowledgeRestartHelper is the child process of TestKnowledgeRestartKill9: it uploads
// kRestartFiles files, says so, and ingests until it is killed.
func TestKnowledgeRestartHelper(t *testing.T) {
	db := os.Getenv("KNOWLEDGE_RESTART_DB")
	if db == "" {
		t.Skip("child process of TestKnowledgeRestartKill9")
	}
	e := &kEnv{t: t, dbPath: db, emb: kSlowEmbedder{hashembed.New(64)}}
	e.open()
	e.call("local", "container_create", map[string]any{"name": "restart"})
	var files []map[string]any
	for i := range kRestartFiles {
		files = append(files, map[string]any{"filename": fmt.Sprintf("f%03d.md", i), "folderPath": fmt.Sprintf("/d%d/", i%7),
			"content": fmt.Sprintf("# File %d\n\nThis is document number %d about topic %d. It has a second kSentence.", i, i, i%13)})
		if len(files) == 100 {
			out := e.call("local", "bulk_upload", map[string]any{"containerId": "restart", "files": kJSON(t, files)})
			if !strings.HasPrefix(out, "Uploaded 100 of 100") {
				t.Fatalf("bulk_upload: %s", out)
			}
			files = nil
		}
	}
	// Ingestion runs in the background: say so once it has readied a
	// document, so the kill lands half-way, with some documents Ready and
	// others still to do.
	readyRE := regexp.MustCompile(`\((\d+) ready,`)
	testtier.WaitFor(t, time.Minute, "a first Ready document", func() bool {
		m := readyRE.FindStringSubmatch(e.call("local", "container_stats", map[string]any{"containerId": "restart"}))
		return m != nil && m[1] != "0"
	})
	fmt.Println("INGESTING")
	time.Sleep(time.Minute) // not a wait: the child idles here until the parent kills it
}

// TestKnowledgeRestartKill9 uploads 200 files in a child process, kills it with
// SIGKILL while ingestion runs, reopens the database and checks that
// every document ends Ready exactly once (the restart test).
func TestKnowledgeRestartKill9(t *testing.T) {
	db := t.TempDir() + "/restart.db"
	cmd := exec.Command(os.Args[0], "-test.run=^TestKnowledgeRestartHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "KNOWLEDGE_RESTART_DB="+db)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	ingesting := false
	for sc.Scan() {
		if sc.Text() == "INGESTING" {
			ingesting = true
			break
		}
	}
	if !ingesting {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatal("child never finished uploading")
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()

	e := &kEnv{t: t, dbPath: db, emb: kSlowEmbedder{hashembed.New(64)}}
	e.open()
	before := e.call("local", "container_stats", map[string]any{"containerId": "restart"})
	if !strings.Contains(before, "processing") {
		t.Fatalf("the kill came after ingestion ended; the test proves nothing:\n%s", before)
	}
	e.wait()
	stats := e.call("local", "container_stats", map[string]any{"containerId": "restart"})
	if !strings.Contains(stats, fmt.Sprintf("Documents: %d\n", kRestartFiles)) {
		t.Fatalf("after restart:\n%s", stats)
	}
	ids := map[string]string{}
	idRE := regexp.MustCompile(`\[FILE\] (\S+) \(\d+ bytes\) ID: (\S+)`)
	for d := range 7 {
		list := e.call("local", "list_files", map[string]any{"containerId": "restart", "path": fmt.Sprintf("/d%d/", d)})
		for _, m := range idRE.FindAllStringSubmatch(list, -1) {
			if prev, dup := ids[m[2]]; dup {
				t.Fatalf("document %s listed twice (%s, %s)", m[2], prev, m[1])
			}
			ids[m[2]] = m[1]
		}
	}
	if len(ids) != kRestartFiles {
		t.Fatalf("%d documents listed, want %d", len(ids), kRestartFiles)
	}
	res := e.call("local", "search_knowledge", map[string]any{"containerId": "restart", "query": "document number 199", "mode": "Keyword", "topK": 1})
	if !strings.Contains(res, "f199.md") {
		t.Fatalf("search after restart:\n%s", res)
	}
}
