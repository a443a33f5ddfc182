package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// The rows a write inserts for new entries (the entry, its tags, grants,
// chunk vectors, embedding metadata and change-log row) wait in the pipe
// as rows of one insert per table, sent as a single statement over one
// array parameter per column: a store_context_batch of 100 entries sends
// six inserts instead of about five hundred. The server runs them
// serially in the writer's backend while the caller waits, and the
// per-statement work (bind, executor start, constraint and trigger
// set-up) was much of it: storing 5,000 Go doc paragraphs in calls of
// 100 cost the store's own backends 0.98-1.09 s of CPU one statement a
// row and 0.56-0.64 s gathered (three runs each, alternating, 2 shared
// cores; docs/benchmarks.md).
//
// The gathered rows of a table are queued when the next statement of
// another kind is (so everything stays in order with the statements it
// does not gather), parents before children: a row may only move ahead
// of gathered rows of other tables, which insert new rows that do not
// depend on it. When the rows of one insert come from several items of
// a batch (persist.ItemOf) and it fails, which item failed cannot be
// told from the server's error; the pipe then rolls back to a savepoint
// it set before them and sends the statements one a row, as they came,
// so the failure reads exactly as it would have without gathering
// (pipe.flush).

// rowKind is an insert whose rows the pipe gathers.
type rowKind struct {
	rank  int    // queue order: tables referenced by others first
	what  string // names the statement in an error
	sql   string // the insert of n rows: one array parameter per column
	types []col  // the Go type of each column's array
}

// col is the Go element type of a column's array parameter: a typed
// slice encodes without the statement's parameter types, which pgx does
// not know when it caches no statements (StatementCacheSize 0).
type col uint8

const (
	colText     col = iota // string
	colNullText            // string or nil
	colInt                 // any integer
	colTime                // time.Time
	colBytes               // []byte or nil
)

// array returns vs as the typed slice of c.
func (c col) array(vs []any) any {
	switch c {
	case colText:
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = v.(string)
		}
		return out
	case colNullText:
		out := make([]pgtype.Text, len(vs))
		for i, v := range vs {
			if s, ok := v.(string); ok {
				out[i] = pgtype.Text{String: s, Valid: true}
			}
		}
		return out
	case colInt:
		out := make([]int64, len(vs))
		for i, v := range vs {
			out[i] = toInt64(v)
		}
		return out
	case colTime:
		out := make([]time.Time, len(vs))
		for i, v := range vs {
			out[i] = v.(time.Time)
		}
		return out
	default:
		out := make([][]byte, len(vs))
		for i, v := range vs {
			if b, ok := v.([]byte); ok {
				out[i] = b
			}
		}
		return out
	}
}

// toInt64 converts the integer kinds the writes pass.
func toInt64(v any) int64 {
	switch n := v.(type) {
	case int:
		return int64(n)
	case int32:
		return int64(n)
	case int64:
		return n
	}
	panic(fmt.Sprintf("postgres: gathered column of %T, want an integer", v))
}

// The gathered inserts, in rank order. Each keeps the order in which its
// rows came (WITH ORDINALITY): sequences number tags and chunks in that
// order, as the one-row statements did.
var (
	entryRows = &rowKind{rank: 0, what: "insert entry", types: []col{colText, colText, colText, colText, colText,
		colNullText, colNullText, colNullText, colInt, colText, colText, colTime, colTime}, sql: `INSERT INTO context_entries
	(id, thread_id, source, content_type, text_content, metadata_text, summary, content_hash,
	 version, owner_id, visibility, created_at, updated_at)
	SELECT u.a, u.b, u.c, u.d, u.e, u.f, u.g, u.h, u.i, u.j, u.k, u.l, u.m
	FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
		$9::bigint[], $10::text[], $11::text[], $12::timestamptz[], $13::timestamptz[])
		WITH ORDINALITY AS u(a, b, c, d, e, f, g, h, i, j, k, l, m, o) ORDER BY u.o`}
	tagRows = &rowKind{rank: 1, what: "insert tags", types: []col{colText, colText}, sql: `INSERT INTO tags (context_entry_id, tag)
	SELECT u.a, u.b FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(a, b, o) ORDER BY u.o
	ON CONFLICT DO NOTHING`}
	grantRows = &rowKind{rank: 2, what: "insert grant", types: []col{colText, colText, colText, colText, colText, colTime}, sql: `INSERT INTO context_entry_grants
	(context_entry_id, principal_type, principal_id, permission, granted_by, created_at)
	SELECT u.a, u.b, u.c, u.d, u.e, u.f
	FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])
		WITH ORDINALITY AS u(a, b, c, d, e, f, o) ORDER BY u.o
	ON CONFLICT DO NOTHING`}
	chunkRows = &rowKind{rank: 3, what: "set embeddings: insert chunks", types: []col{colText, colInt, colInt, colInt, colBytes, colBytes}, sql: `INSERT INTO embedding_chunks
	(context_id, chunk_index, start_index, end_index, embedding, code)
	SELECT u.a, u.b, u.c, u.d, u.e, u.f
	FROM unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::bytea[], $6::bytea[])
		WITH ORDINALITY AS u(a, b, c, d, e, f, o) ORDER BY u.o`}
	embMetaRows = &rowKind{rank: 4, what: "set embeddings: write metadata", types: []col{colText, colNullText, colInt, colInt, colTime}, sql: `INSERT INTO embedding_metadata
	(context_id, model_name, dimensions, chunk_count, created_at, updated_at)
	SELECT u.a, u.b, u.c, u.d, u.e, u.e
	FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::timestamptz[])
		WITH ORDINALITY AS u(a, b, c, d, e, o) ORDER BY u.o
	ON CONFLICT (context_id) DO UPDATE SET model_name = excluded.model_name,
		dimensions = excluded.dimensions, chunk_count = excluded.chunk_count, updated_at = excluded.updated_at`}
	logRows = &rowKind{rank: 5, what: "append change log", types: []col{colInt, colText, colText}, sql: `INSERT INTO change_log (seq, entry_id, op, at)
	SELECT u.a, u.b, u.c, now() FROM unnest($1::bigint[], $2::text[], $3::text[])
		WITH ORDINALITY AS u(a, b, c, o) ORDER BY u.o`}
)

// rowKinds are the gathered inserts by rank.
var rowKinds = [...]*rowKind{entryRows, tagRows, grantRows, chunkRows, embMetaRows, logRows}

// rowSet is the gathered rows of one kind: a column of values each.
type rowSet struct {
	cols  [][]any
	items []int // the batch item of each distinct run of rows, -1 for none
}

// add appends one row.
func (r *rowSet) add(k *rowKind, row []any, item int) {
	if r.cols == nil {
		r.cols = make([][]any, len(k.types))
	}
	for i, v := range row {
		r.cols[i] = append(r.cols[i], v)
	}
	if n := len(r.items); n == 0 || r.items[n-1] != item {
		r.items = append(r.items, item)
	}
}

// item is the one batch item the rows came from, or false when they came
// from several.
func (r *rowSet) item() (int, bool) {
	first := r.items[0]
	for _, it := range r.items[1:] {
		if it != first {
			return 0, false
		}
	}
	return first, true
}

// stmt is one statement the pipe sends: what names it in an error ("" for
// Exec's own), item is the batch item that made it (-1 for none).
type stmt struct {
	what, sql string
	args      []any
	item      int
}

// putRows gathers rows of kind k; sql and args are the same write as one
// statement of its own, which the pipe sends instead when a gathered
// insert fails (flush).
func (p *pipe) putRows(ctx context.Context, k *rowKind, rows [][]any, sql string, args ...any) error {
	if p.savepoints >= maxSavepoints {
		return p.put(ctx, k.what, sql, args...)
	}
	item := itemOf(ctx)
	if len(rows) > 0 {
		for _, row := range rows {
			p.rows[k.rank].add(k, row, item)
		}
		p.pendingRows = true
	}
	p.orig = append(p.orig, stmt{what: k.what, sql: sql, args: args, item: item})
	return p.count(ctx, args)
}

// queueRows moves the gathered rows into the statements to send, in rank
// order. A set of rows from several batch items makes the pipe set a
// savepoint before its first statement (flush).
func (p *pipe) queueRows() {
	if !p.pendingRows {
		return
	}
	for i, k := range rowKinds {
		r := &p.rows[i]
		if r.cols == nil {
			continue
		}
		item, one := r.item()
		if !one {
			item, p.mixed = -1, true
		}
		args := make([]any, len(r.cols))
		for c, vs := range r.cols {
			args[c] = k.types[c].array(vs)
		}
		p.stmts = append(p.stmts, stmt{what: k.what, sql: k.sql, args: args, item: item})
		*r = rowSet{}
	}
	p.pendingRows = false
}

// savepointRows is the savepoint set before gathered rows of several
// batch items.
const savepointRows = "contextd_rows"

// maxSavepoints bounds the savepoints of one transaction: each one that
// wrote keeps a subtransaction id until the commit, and past 64 of them
// PostgreSQL's snapshots of every other session overflow to pg_subtrans
// while the transaction lasts. A write that has set this many (a batch
// of more than 32 MiB of arguments, one set per pipeBytes sent) sends the
// rest one statement a row, as before gathering.
var maxSavepoints = 32

// send sends stmts as one batch and returns the command tag of stmts[at],
// or the first failure wrapped with what it did and its item, and the
// index of the statement that failed (-1 for none).
func (p *pipe) send(ctx context.Context, stmts []stmt, at int) (pgconn.CommandTag, int, error) {
	var b pgx.Batch
	for _, s := range stmts {
		b.Queue(s.sql, s.args...)
	}
	p.trips++
	br := p.tx.SendBatch(ctx, &b)
	var tag pgconn.CommandTag
	var first error
	failed := -1
	for i, s := range stmts {
		t, err := br.Exec()
		switch {
		case err == nil || first != nil:
		case s.what == "": // Exec's own statement: its caller wraps it
			first, failed = err, i
		default:
			first, failed = atItem(s.item, wrap(s.what, err)), i
		}
		if i == at {
			tag = t
		}
	}
	if err := br.Close(); err != nil && first == nil {
		last := stmts[len(stmts)-1]
		first, failed = atItem(last.item, wrap(last.what, err)), len(stmts)-1
	}
	return tag, failed, first
}

// itemOf is the batch item of ctx, -1 for none.
func itemOf(ctx context.Context) int {
	if item, ok := persist.ItemOf(ctx); ok {
		return item
	}
	return -1
}
