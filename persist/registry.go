package persist

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// OpenConfig says which store to open. The zero value opens nothing:
// Backend and Path (or URL) must be set; the engine fills in its defaults.
type OpenConfig struct {
	// Backend is the registered name of the backend (STORAGE_BACKEND),
	// e.g. "sqlite" or "postgresql".
	Backend string
	// Path is the database file of a file-backed store (DB_PATH).
	Path string
	// URL is the connection string of a server-backed store.
	URL string
	// Options are backend-specific settings, e.g. sqlite.Options; nil
	// means the backend's defaults.
	Options any
}

// Opener opens a store of one backend.
type Opener func(ctx context.Context, c OpenConfig) (Store, error)

// The registry is the one piece of package state: backends register
// themselves from init, as database/sql drivers and litestream's replica
// clients do, so the engine can open a store by name without importing
// any backend. It is written only during init and read afterwards.
var registry struct {
	mu      sync.RWMutex
	openers map[string]Opener
}

// Register makes a backend available to Open under name. It panics when
// name is registered twice: that is a programming error caught at start-up,
// never caller input.
func Register(name string, open Opener) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.openers == nil {
		registry.openers = map[string]Opener{}
	}
	if _, dup := registry.openers[name]; dup {
		panic("persist: backend " + name + " registered twice")
	}
	registry.openers[name] = open
}

// Backends lists the registered backend names, sorted.
func Backends() []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	names := make([]string, 0, len(registry.openers))
	for n := range registry.openers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Open opens a store of the registered backend c.Backend.
func Open(ctx context.Context, c OpenConfig) (Store, error) {
	registry.mu.RLock()
	open := registry.openers[c.Backend]
	registry.mu.RUnlock()
	if open == nil {
		known := Backends()
		if len(known) == 0 {
			return nil, fmt.Errorf("storage backend %q is not registered: no backend is linked in (import github.com/contextd/contextd/persist/sqlite)", c.Backend)
		}
		return nil, fmt.Errorf("storage backend %q is not registered (known: %s)", c.Backend, strings.Join(known, ", "))
	}
	return open(ctx, c)
}
