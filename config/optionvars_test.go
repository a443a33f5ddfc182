package config

import (
	"context"
	"testing"

	"github.com/contextd/contextd/persist/sqlite"
)

// TestStoreOptionVariables: a store's refusal of an option comes back
// naming the variable behind it, and a message naming none is unchanged.
func TestStoreOptionVariables(t *testing.T) {
	_, err := sqlite.Open(context.Background(), sqlite.Options{Path: ":memory:", MmapSize: -1})
	if err == nil {
		t.Fatal("a negative MmapSize was accepted")
	}
	if got, want := StoreOptionVariables(err.Error()), "sqlite: option MmapSize (SQLITE_MMAP_SIZE): -1 is negative"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := StoreOptionVariables("database locked"); got != "database locked" {
		t.Errorf("an unrelated message became %q", got)
	}
}
