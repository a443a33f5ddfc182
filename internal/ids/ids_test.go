package ids

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

func TestGeneratorMonotonic(t *testing.T) {
	fixed := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := NewGenerator(func() time.Time { return fixed })
	prev := ""
	for i := 0; i < 10000; i++ {
		id := g.Next()
		if _, err := hex.DecodeString(id); len(id) != 32 || err != nil || strings.ToLower(id) != id {
			t.Fatalf("id %q is not 32 lowercase hex", id)
		}
		if id[12] != '7' {
			t.Fatalf("id %q is not version 7", id)
		}
		if id <= prev {
			t.Fatalf("id %q not after %q", id, prev)
		}
		prev = id
	}
}
