package persist

import (
	"context"
	"errors"
	"fmt"
)

// itemKey is the context key of WithItem.
type itemKey struct{}

// WithItem returns ctx marking the writes made with it as those of item i
// (from 0) of a batch written in one transaction (an atomic
// store_context_batch). A store that holds statements back and sends
// them later in one round trip (PostgreSQL's pipeline) reports a held
// statement's failure, wherever it surfaces (a later item's read, the
// commit), as an *ItemError of the item that made it; a store that runs
// each statement at once fails the call itself, and the caller wraps that
// with AtItem. Either way the caller's error names the same item.
func WithItem(ctx context.Context, i int) context.Context {
	return context.WithValue(ctx, itemKey{}, i)
}

// ItemOf returns the item WithItem marked ctx with.
func ItemOf(ctx context.Context) (int, bool) {
	i, ok := ctx.Value(itemKey{}).(int)
	return i, ok
}

// ItemError is the failure of item Item of a batch written in one
// transaction: "entry N: " and the store's error.
type ItemError struct {
	Item int
	Err  error
}

func (e *ItemError) Error() string { return fmt.Sprintf("entry %d: %v", e.Item, e.Err) }
func (e *ItemError) Unwrap() error { return e.Err }

// AtItem reports err as item i's failure. An error that already is an
// item's failure is returned as that item's (without what the later call
// wrapped around it): a statement a store held back fails where it is
// sent, which may be during a later item's call, and the item that made
// it is the one that failed. nil stays nil.
func AtItem(i int, err error) error {
	if err == nil {
		return nil
	}
	var ie *ItemError
	if errors.As(err, &ie) {
		return ie
	}
	return &ItemError{Item: i, Err: err}
}
