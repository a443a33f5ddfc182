package server

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/model/builtin"
)

// allModesEngine opens an engine with every search mode, so that every
// built-in tool is available.
func allModesEngine(t *testing.T) *contextd.Engine {
	t.Helper()
	eng, err := contextd.Open(context.Background(), contextd.Config{
		DBPath:    filepath.Join(t.TempDir(), "instructions.db"),
		FTS:       contextd.FTSConfig{Progress: io.Discard},
		Embedding: contextd.EmbeddingConfig{Embedder: &builtin.Embedder{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return eng
}

// TestInstructionsListRegisteredTools_R508: the instructions sent at
// initialize are built from the registered tools. The default
// configuration and one with tools disabled are pinned as golden text
// (-update rewrites them), and in both every registered tool has a row
// while no tool that is not registered (disabled, unavailable or only
// planned) is named anywhere.
func TestInstructionsListRegisteredTools_R508(t *testing.T) {
	all := []string{"plan_context_sync", "list_ingest_state"}
	for _, tl := range ContextTools() {
		all = append(all, tl.Spec.Name)
	}
	for _, tc := range []struct {
		name     string
		disabled []string
		golden   string
	}{
		{"default", nil, "../testdata/golden/instructions_default.md"},
		{"disabled", []string{"hybrid_search_context", "grep_context", "Update_Context", "store_context_batch", "get_context_by_ids"},
			"../testdata/golden/instructions_disabled.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(allModesEngine(t), Options{DisabledTools: tc.disabled})
			if err != nil {
				t.Fatal(err)
			}
			got := initialize(t, s).Instructions
			if *updateGolden {
				if err := os.WriteFile(tc.golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(tc.golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Fatalf("instructions differ from %s:\n%s", tc.golden, got)
			}
			registered := s.ToolNames()
			for _, name := range all {
				row := "| `" + name + "` |"
				switch {
				case slices.Contains(registered, name) && !strings.Contains(got, row):
					t.Errorf("registered tool %s has no row", name)
				case !slices.Contains(registered, name) && regexp.MustCompile(`\b`+name+`\b`).MatchString(got):
					t.Errorf("tool %s is not registered but the instructions name it", name)
				}
			}
		})
	}
}

// TestInstructionsContributedTool: a tool of another package gets a row
// described by its title, or by the first line of its description.
func TestInstructionsContributedTool(t *testing.T) {
	titled := echoTool("echo_titled")
	titled.Spec.Annotations.Title = "Echo with a title"
	got := DefaultInstructions([]Tool{titled, echoTool("echo_plain")})
	for _, row := range []string{"| `echo_titled` | Echo with a title |", "| `echo_plain` | Echo the arguments. |"} {
		if !strings.Contains(got, row) {
			t.Fatalf("instructions lack %q:\n%s", row, got)
		}
	}
	if strings.Contains(got, "store_context") || strings.Contains(got, "get_context_by_ids") {
		t.Fatalf("instructions name built-in tools that are not registered:\n%s", got)
	}
}
