package sqlite

import (
	"fmt"
	"time"

	"github.com/contextd/contextd/persist"
)

// micros converts t to the stored form: unix microseconds.
func micros(t time.Time) int64 { return t.UnixMicro() }

// microsCeil rounds t up to the next whole microsecond.
func microsCeil(t time.Time) int64 {
	m := t.UnixMicro()
	if time.UnixMicro(m).Before(t) {
		m++
	}
	return m
}

// fromMicros converts a stored time back to UTC.
func fromMicros(m int64) time.Time { return time.UnixMicro(m).UTC() }

// filter writes the access predicate and every structural filter of f on
// the entry alias e (sqlstore.Builder.Filter), naming this store in a
// refused condition's error.
func filter(b *sqlb, acc persist.Access, f persist.Filter) error {
	if err := b.Filter(acc, f); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	return nil
}
