package generate

import (
	"errors"
	"fmt"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
)

type apiError struct{ msg string }

func (e *apiError) Error() string { return e.msg }

func TestGenerationFailedMessage(t *testing.T) {
	err := generationFailed([]legError{
		{"summary", fmt.Errorf("call provider: %w", &apiError{"HTTP 500: boom"})},
		{"embedding", errors.New("connection refused")},
	})
	want := "Generation failed after exhausting configured retries: embedding: Error: connection refused; summary: apiError: call provider: HTTP 500: boom"
	if err.Error() != want {
		t.Fatalf("got  %q\nwant %q", err.Error(), want)
	}
	if !errors.Is(err, cerrors.ErrGeneration) {
		t.Fatalf("not ErrGeneration")
	}
}

func TestStoredNodesLookup(t *testing.T) {
	s := newStoredNodes([]persist.NodeSummary{{NodeID: "a", Start: 0, End: 10, Summary: "A"}, {NodeID: "old-id", Start: 10, End: 20, Summary: "B"}})
	tests := []struct {
		id         string
		start, end int
		want       string // "" = nil
	}{
		{"a", 0, 10, "A"},       // id and span agree
		{"b", 10, 20, "B"},      // renamed heading, same span
		{"a", 0, 12, ""},        // the section changed
		{"nothing", 30, 40, ""}, // no stored summary
		{"old-id", 10, 20, "B"}, // unchanged
		{"old-id", 11, 20, ""},  // moved
	}
	for _, tc := range tests {
		got := s.Lookup(tc.id, tc.start, tc.end)
		if (got == nil) != (tc.want == "") || (got != nil && *got != tc.want) {
			t.Fatalf("lookup(%s,%d,%d) = %v, want %q", tc.id, tc.start, tc.end, got, tc.want)
		}
	}
}

func TestRepairText(t *testing.T) {
	if got := repairText("  a\x00b \xff "); got != "ab \uFFFD" {
		t.Fatalf("repairText = %q", got)
	}
}
