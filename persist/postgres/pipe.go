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
	stmts []stmt // queued, in the order they go
	// rows are the gathered inserts not yet in stmts (coalesce.go), by
	// rank; pendingRows tells whether any holds rows.
	rows        [len(rowKinds)]rowSet
	pendingRows bool
	// orig are the queued writes as statements of their own, in the order
	// they came, and mixed tells whether stmts holds gathered rows of
	// several batch items: then a failure is told by sending orig.
	orig       []stmt
	mixed      bool
	savepoints int // savepoints set (maxSavepoints)
	bytes      int // the queued arguments' text and byte sizes
	trips      int // round trips made (for the tests)
}

// pipeBytes bounds the argument bytes a pipe holds back: a batch is
// encoded whole before it is sent, so large texts go as they come
// rather than as one copy of the whole transaction.
const pipeBytes = 1 << 20

// put queues a statement; what names it in an error. It sends the queue
// once its arguments pass pipeBytes.
func (p *pipe) put(ctx context.Context, what, sql string, args ...any) error {
	p.queueRows()
	s := stmt{what: what, sql: sql, args: args, item: itemOf(ctx)}
	p.stmts = append(p.stmts, s)
	p.orig = append(p.orig, s)
	return p.count(ctx, args)
}

// count adds the text and byte sizes of args to the queued bytes and
// sends the queue once they pass pipeBytes.
func (p *pipe) count(ctx context.Context, args []any) error {
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

// queued reports whether a statement named what waits to be sent.
func (p *pipe) queued(what string) bool {
	for _, s := range p.orig {
		if s.what == what {
			return true
		}
	}
	return false
}

// flush sends the queued statements and returns the command tag of the
// last one, or the first failure wrapped with what it did and the item
// that made it. When gathered rows of several batch items were sent, a
// savepoint precedes them, and a failure rolls back to it and sends the
// writes one statement each, as they came: the error is the one they
// give (the first statement that fails names its own item).
func (p *pipe) flush(ctx context.Context) (pgconn.CommandTag, error) {
	p.queueRows()
	if len(p.stmts) == 0 {
		return pgconn.CommandTag{}, nil
	}
	// The results read the statements they were sent from: the pipe
	// starts new lists.
	stmts, orig, mixed := p.stmts, p.orig, p.mixed
	p.stmts, p.orig, p.mixed, p.bytes = nil, nil, false, 0
	if !mixed {
		tag, _, err := p.send(ctx, stmts, len(stmts)-1)
		return tag, err
	}
	p.savepoints++
	sp := make([]stmt, 0, len(stmts)+2)
	sp = append(sp, stmt{what: "gather rows", sql: "SAVEPOINT " + savepointRows, item: -1})
	sp = append(sp, stmts...)
	sp = append(sp, stmt{what: "gather rows", sql: "RELEASE SAVEPOINT " + savepointRows, item: -1})
	tag, failed, err := p.send(ctx, sp, len(sp)-2)
	if err == nil || failed < 1 || ctx.Err() != nil {
		// Sent and done, or failed before the savepoint was set.
		return tag, err
	}
	// The statements of the replay are prepared before they are sent,
	// which an aborted transaction refuses: the rollback goes first.
	p.trips++
	if _, rerr := p.tx.Exec(ctx, "ROLLBACK TO SAVEPOINT "+savepointRows); rerr != nil {
		return tag, err
	}
	tag, _, err = p.send(ctx, orig, len(orig)-1)
	return tag, err
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
	if len(p.orig) == 0 {
		p.trips++
		return p.tx.Exec(ctx, sql, args...)
	}
	p.queueRows()
	s := stmt{sql: sql, args: args, item: -1}
	p.stmts = append(p.stmts, s)
	p.orig = append(p.orig, s)
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
