package postgres

import (
	"context"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlstore"
)

// The storage contract of package persist, checked at compile time.
var (
	_ persist.Store = (*Store)(nil)
	_ persist.Tx    = (*tx)(nil)
)

// Backend is the name this store registers under (STORAGE_BACKEND).
const Backend = "postgresql"

func init() { persist.Register(Backend, openConfig) }

// openConfig opens a store from a persist.OpenConfig: URL is the
// connection string, Options (when set) must be Options.
func openConfig(ctx context.Context, c persist.OpenConfig) (persist.Store, error) {
	o, ok := sqlstore.OptionsOf[Options](c.Options)
	if !ok {
		return nil, errf("options are %T, want postgres.Options", c.Options)
	}
	if c.URL != "" {
		o.URL = c.URL
	}
	st, err := Open(ctx, o)
	if err != nil {
		return nil, err
	}
	return st, nil
}
