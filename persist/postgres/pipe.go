package postgres

import (
	"context"

	"github.com/contextd/contextd/persist"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pipe is a write transaction's connection. Statements whose outcome the
// write does not read (put: an entry's row, its tags, grants, change-log
// row, chunk vectors, node summaries) wait in a pgx batch and go to the
// server together with the next statement that needs an answer, or
// before commit: one round trip for them all. A store_context_batch of
// 100 entries sent about 600 statements one at a time (six an entry);
// pipelined it sends five round trips (begin, the write lock, the
// change-log head, the batch with the notification, commit).
//
// A put that fails is reported by the call that sends it, wrapped with
// what it did; the transaction is then aborted, as it would have been
// had the statement run at once, so Write returns that error. A put made
// with a context of persist.WithItem fails as a *persist.ItemError of
// that item, wherever it is sent: in an atomic batch the failure of
// entry 1's insert surfaces at the commit, or in entry 2's first read,
// and must still read "entry 1: " as it does on SQLite, where the insert
// itself fails.
type pipe struct {
	tx    pgx.Tx
	batch pgx.Batch
	whats []string // what each queued statement does, for its error
	items []int    // the batch item each made (persist.ItemOf), -1 for none
	bytes int      // the queued arguments' text and byte sizes
	trips int      // round trips made (for the tests)
}

// pipeBytes bounds the argument bytes a pipe holds back: a batch is
// encoded whole before it is sent, so large texts go as they come
// rather than as one copy of the whole transaction.
const pipeBytes = 1 << 20

// put queues a statement; what names it in an error. It sends the queue
// once its arguments pass pipeBytes.
func (p *pipe) put(ctx context.Context, what, sql string, args ...any) error {
	p.batch.Queue(sql, args...)
	p.whats = append(p.whats, what)
	item, ok := persist.ItemOf(ctx)
	if !ok {
		item = -1
	}
	p.items = append(p.items, item)
	for _, a := range args {
		switch v := a.(type) {
		case string:
			p.bytes += len(v)
		case []byte:
			p.bytes += len(v)
		case [][]byte:
			for _, b := range v {
				p.bytes += len(b)
			}
		}
	}
	if p.bytes >= pipeBytes {
		_, err := p.flush(ctx)
		return err
	}
	return nil
}

// flush sends the queued statements and returns the command tag of the
// last one, or the first failure wrapped with what it did and the item
// that made it.
func (p *pipe) flush(ctx context.Context) (pgconn.CommandTag, error) {
	if len(p.whats) == 0 {
		return pgconn.CommandTag{}, nil
	}
	// The results read the batch they were sent from: the pipe starts a
	// new one.
	whats, items, b := p.whats, p.items, p.batch
	p.batch, p.whats, p.items, p.bytes = pgx.Batch{}, nil, nil, 0
	p.trips++
	br := p.tx.SendBatch(ctx, &b)
	var tag pgconn.CommandTag
	var first error
	for k, what := range whats {
		t, err := br.Exec()
		switch {
		case err == nil || first != nil:
		case what == "": // Exec's own statement: its caller wraps it
			first = err
		default:
			first = atItem(items[k], wrap(what, err))
		}
		tag = t
	}
	if err := br.Close(); err != nil && first == nil {
		last := len(whats) - 1
		first = atItem(items[last], wrap(whats[last], err))
	}
	return tag, first
}

// atItem names the batch item of a failed queued statement; -1 is none.
func atItem(item int, err error) error {
	if item < 0 {
		return err
	}
	return persist.AtItem(item, err)
}

// Exec runs sql after the queued statements, in the same round trip.
func (p *pipe) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if len(p.whats) == 0 {
		p.trips++
		return p.tx.Exec(ctx, sql, args...)
	}
	p.batch.Queue(sql, args...)
	p.whats = append(p.whats, "")
	p.items = append(p.items, -1)
	return p.flush(ctx)
}

// Query and QueryRow send the queued statements first.
func (p *pipe) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if _, err := p.flush(ctx); err != nil {
		return nil, err
	}
	p.trips++
	return p.tx.Query(ctx, sql, args...)
}

func (p *pipe) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if _, err := p.flush(ctx); err != nil {
		return errRow{err}
	}
	p.trips++
	return p.tx.QueryRow(ctx, sql, args...)
}

// queryRowNow reads past the queued statements: for a read they cannot
// change.
func (p *pipe) queryRowNow(ctx context.Context, sql string, args ...any) pgx.Row {
	p.trips++
	return p.tx.QueryRow(ctx, sql, args...)
}

// errRow is a row whose query was not sent: Scan reports why.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
