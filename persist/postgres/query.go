package postgres

import (
	"github.com/contextd/contextd/persist"
)

// filter writes the access predicate and every structural filter of f on
// the entry alias e (sqlstore.Builder.Filter), naming this store in a
// refused condition's error.
func filter(b *sqlb, acc persist.Access, f persist.Filter) error {
	if err := b.Filter(acc, f); err != nil {
		return errf("%v", err)
	}
	return nil
}
