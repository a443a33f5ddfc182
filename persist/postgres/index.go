package postgres

import (
	"context"

	"github.com/contextd/contextd/persist"
)

// FilterIDs returns the ids of the readable entries matching f, in id
// order.
func (s *Store) FilterIDs(ctx context.Context, acc persist.Access, f persist.Filter) ([]string, error) {
	b, err := s.reader.FilterIDsSQL(acc, f)
	if err != nil {
		return nil, err
	}
	return asCaller(s, ctx, acc, func(r reader) ([]string, error) { return r.IDs(ctx, b) })
}
