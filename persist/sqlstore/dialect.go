// Package sqlstore owns what the two SQL stores (persist/sqlite and
// persist/postgres) share: one statement builder parameterised by a
// Dialect (placeholders, id lists, planner hints, time values, the JSON
// operators of the metadata filter), the access predicates and structural
// filters every read applies, and the Go logic around the statements that
// is the same on both (row scanning into entries, hydration with tags and
// images, paging by size, the change of an entry, the chunk-vector reads).
//
// Each store keeps only its Dialect, its schema and migrations, its
// connection handling and its truly backend-specific paths (FTS5 and
// sqlite-vec, tsvector and pgvector). The two stores once held about 350
// identical lines and two parallel 140-line metadata builders; a fix made
// in one was easily missed in the other.
//
// The SQL each dialect writes is kept to the byte what the store wrote
// before the stores shared this package (the builder test pins it per
// dialect), so query plans, ties and error texts do not move: SQLite's
// unary + hints that keep an index from driving, PostgreSQL's casts that
// fix a parameter's type at prepare time.
//
//	b := sqlstore.NewBuilder(dialect)
//	b.W("SELECT e.id FROM context_entries e WHERE ")
//	err := b.Filter(acc, f)
//	rows, err := q.Query(ctx, b.String(), b.Args()...)
package sqlstore

import (
	"context"
	"time"

	"github.com/contextd/contextd/persist"
)

// Dialect is what differs between the SQL stores in the statements they
// share. Methods that take a *Builder write SQL text and bind arguments on
// it; the others return SQL text or a value to bind.
type Dialect interface {
	// Name prefixes the error texts of the store ("sqlite", "postgresql").
	Name() string
	// Dollar reports numbered placeholders ($1, $2, ...) that keep the
	// casts Builder.Typed is given; otherwise placeholders are ? and casts
	// are dropped (SQLite binds values as they are).
	Dollar() bool
	// Hint is written before a column whose index should not drive a
	// statement ("+" on SQLite, whose planner honours a unary plus; empty
	// on PostgreSQL, whose planner costs the choice itself).
	Hint() string
	// BulkReadable reports that the aggregate views use an uncorrelated
	// grant subquery (Builder.ReadableBulk) rather than the correlated one.
	BulkReadable() bool
	// In writes "col IN (list)" or its equivalent for vals; an empty vals
	// is a predicate that is false.
	In(b *Builder, col string, vals []string)
	// Left is the SQL of the first n characters of the text x.
	Left(x string, n int) string
	// Time and TimeCeil are t as bound for a created_at comparison:
	// truncated, or rounded up, to the stored microsecond.
	Time(t time.Time) any
	TimeCeil(t time.Time) any
	// Before writes the keyset condition "(created_at, id) is before
	// (at, id)" on the entry alias e.
	Before(b *Builder, at any, id string)
	// Limit is the bound value of a LIMIT of n rows (n <= 0: no limit);
	// Count is a row count or offset as bound.
	Limit(n int) any
	Count(n int) any
	// False is the SQL literal false.
	False() string
	// Wrap turns a driver error into the store's error naming what failed;
	// Errf makes a store error that is not a driver failure.
	Wrap(what string, err error) error
	Errf(format string, args ...any) error
	JSON
	RowsDialect
	WriteDialect
	StatsDialect
}

// JSON is the dialect's spelling of the metadata conditions: how a JSON
// path is read, typed and compared. Values are always bound, never
// interpolated; path segments reach it validated and with single quotes
// doubled.
type JSON interface {
	// Path returns the expressions of the path segs in the document doc.
	Path(doc string, segs []string) JSONExpr
	// StringType and NumberType follow the Type expression: the test that
	// the value is a JSON string, a JSON number.
	StringType() string
	NumberType() string
	// BoolLit is the literal that Bool compares to for a JSON true/false.
	BoolLit(v bool) string
	// EqString writes "the string at j equals v" (folded unless cs).
	EqString(b *Builder, j JSONExpr, v string, cs bool)
	// NotNull and IsNull are the is_not_null and is_null conditions.
	NotNull(j JSONExpr) string
	IsNull(j JSONExpr) string
	// StrIn writes " IN (...)" or its equivalent for the folded strings.
	StrIn(b *Builder, vals []string)
	// Match writes the contains/starts_with/ends_with test of a non-empty
	// needle of n characters, after "(<type test>".
	Match(b *Builder, j JSONExpr, op, needle string, n int)
	// ArrayContains writes the test of an array element equal to v of the
	// given kind (sqlval.Kind*), after "(<type test> = 'array' AND ".
	ArrayContains(b *Builder, j JSONExpr, kind int, v any, cs bool)
}

// JSONExpr is the SQL of one metadata path of the entry alias e.
type JSONExpr struct {
	Doc  string // the document (e.metadata, or NULL in a knowledge thread)
	Path string // the path as the dialect's JSON functions take it
	Type string // the JSON type of the value
	Val  string // the value as text, compared in byte order
	Fold string // the value as text folded with sqlval.ASCIILower
	Num  string // the value as a number
	Bool string // what BoolLit is compared with
}

// RowsDialect is the dialect's side of reading rows: the columns of an entry and
// how they scan, and the plan of a statement.
type RowsDialect interface {
	// EntryCols are the columns ScanEntry reads, on the alias e.
	EntryCols() string
	// ScanEntries reads the rows of EntryCols to their end (it does not
	// close them). Tags is empty, not nil.
	ScanEntries(r Rows) ([]persist.Entry, error)
	// AccessCols are EntryCols without the text and summary: what an
	// index's access catalog keeps (the metadata answers search_context's
	// filters). In place of the summary it selects '*' for an entry that
	// has a non-empty one, NULL otherwise (IndexDoc.Summarized).
	AccessCols() string
	// MetadataCol is the column holding an entry's metadata as text.
	MetadataCol() string
	// InlineTags reports whether EntryCols and AccessCols end with the
	// entry's tags and image count, which ScanEntries then sets: a page
	// is hydrated in one statement. Otherwise Reader.Entries reads them
	// with a second one (cheap where the database is in-process).
	InlineTags() bool
	// PrefixMax is the largest byte ResolvePrefix may bump to bound an id
	// prefix: 0xff where ids compare as bytes, 0x7f where the bound must
	// stay valid UTF-8.
	PrefixMax() byte
	// Plan returns the query plan of b, one line per plan line.
	Plan(ctx context.Context, q Querier, b *Builder) (string, error)
}
