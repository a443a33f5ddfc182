package postgres

import (
	"strconv"
	"strings"
	"time"

	"github.com/contextd/contextd/persist/sqlstore"
	"github.com/contextd/contextd/persist/sqlval"
)

// dialect is PostgreSQL's spelling of the statements the SQL stores share
// (sqlstore.Dialect): $n placeholders with casts that fix a parameter's
// type at prepare time, one array parameter per list (a statement takes
// at most 65,535 parameters), timestamptz values, JSON through jsonb.
type dialect struct{}

// Dialect is PostgreSQL's spelling of the shared statements.
var Dialect sqlstore.Dialect = dialect{}

// sqlb is a statement builder in PostgreSQL's dialect.
type sqlb = sqlstore.Builder

func newB() *sqlb { return sqlstore.NewBuilder(Dialect) }

func (dialect) Name() string       { return "postgresql" }
func (dialect) Dollar() bool       { return true }
func (dialect) Hint() string       { return "" }
func (dialect) BulkReadable() bool { return false }
func (dialect) False() string      { return "false" }

// In writes col = ANY($n::text[]): one parameter whatever the length.
func (dialect) In(b *sqlb, col string, vals []string) {
	b.W(col)
	anyOf(b, vals)
}

// anyOf writes " = ANY($n::text[])" bound to vals (nil binds as empty).
func anyOf(b *sqlb, vals []string) {
	if vals == nil {
		vals = []string{}
	}
	b.W(" = ANY(").Typed(vals, "::text[]").W(")")
}

func (dialect) Left(x string, n int) string { return "left(" + x + ", " + strconv.Itoa(n) + ")" }
func (dialect) Time(t time.Time) any        { return ts(t) }
func (dialect) TimeCeil(t time.Time) any    { return tsCeil(t) }

func (dialect) Before(b *sqlb, at any, id string) {
	b.W("(e.created_at, e.id) < (").Arg(at).W(", ").Typed(id, "::text").W(")")
}

// Limit is NULL for no limit.
func (dialect) Limit(n int) any {
	if n <= 0 {
		return nil
	}
	return int64(n)
}

func (dialect) Count(n int) any                       { return int64(n) }
func (dialect) Wrap(what string, err error) error     { return wrap(what, err) }
func (dialect) Errf(format string, args ...any) error { return errf(format, args...) }

// ts converts t to the stored precision (timestamptz keeps microseconds;
// PostgreSQL would round, SQLite's store truncates, so truncate here too).
func ts(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// tsCeil rounds t up to the next whole microsecond.
func tsCeil(t time.Time) time.Time {
	m := t.UTC().Truncate(time.Microsecond)
	if m.Before(t) {
		m = m.Add(time.Microsecond)
	}
	return m
}

// Path reads the path with jsonb operators: metadata -> 'a' for one
// segment (the spelling of the expression indexes of migration 0001),
// metadata #> ARRAY['a','b'] for several. jsonb_typeof tells a JSON string
// from a number or a boolean; strings compare in byte order (COLLATE "C"),
// as on SQLite. PostgreSQL does not promise to evaluate AND left to
// right, so the cast to numeric is guarded by CASE: a string value never
// reaches it.
func (dialect) Path(doc string, segs []string) sqlstore.JSONExpr {
	var jv, tv string
	if len(segs) == 1 {
		lit := "'" + segs[0] + "'"
		jv, tv = "("+doc+" -> "+lit+")", "("+doc+" ->> "+lit+")"
	} else {
		arr := "ARRAY['" + strings.Join(segs, "', '") + "']::text[]"
		jv, tv = "("+doc+" #> "+arr+")", "("+doc+" #>> "+arr+")"
	}
	typ := "jsonb_typeof(" + jv + ")"
	return sqlstore.JSONExpr{
		Doc: doc, Path: jv, Type: typ, Bool: jv,
		Val:  tv + ` COLLATE "C"`,
		Fold: foldSQL(tv) + ` COLLATE "C"`,
		Num:  "(CASE WHEN " + typ + " = 'number' THEN (" + jv + ")::numeric END)",
	}
}

// foldSQL is the SQL of sqlval.ASCIILower applied to x.
func foldSQL(x string) string {
	return "translate(" + x + ", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
}

func (dialect) StringType() string        { return " = 'string'" }
func (dialect) NumberType() string        { return " = 'number'" }
func (dialect) BoolLit(v bool) string     { return "'" + strconv.FormatBool(v) + "'::jsonb" }
func (dialect) StrIn(b *sqlb, v []string) { anyOf(b, v) }

func (dialect) EqString(b *sqlb, j sqlstore.JSONExpr, v string, cs bool) {
	folded, want := j.Fold, sqlval.ASCIILower(v)
	if cs {
		folded, want = j.Val, v
	}
	b.W("("+j.Type+" = 'string' AND "+folded+" = ").Typed(want, "::text").W(")")
}

// NotNull is exists: a missing key and a JSON null are alike to both.
func (dialect) NotNull(j sqlstore.JSONExpr) string {
	return "coalesce(" + j.Type + ", 'null') <> 'null'"
}
func (dialect) IsNull(j sqlstore.JSONExpr) string { return "(" + j.Type + " = 'null')" }

func (dialect) Match(b *sqlb, j sqlstore.JSONExpr, op, needle string, n int) {
	switch op {
	case "contains":
		b.W(" AND strpos("+j.Fold+", ").Typed(needle, "::text").W(") > 0")
	case "starts_with":
		b.W(" AND left("+j.Fold+", ").Typed(n, "::int").W(") = ").Typed(needle, "::text")
	default:
		b.W(" AND right("+j.Fold+", ").Typed(n, "::int").W(") = ").Typed(needle, "::text")
	}
}

func (dialect) ArrayContains(b *sqlb, j sqlstore.JSONExpr, kind int, v any, cs bool) {
	b.W("EXISTS (SELECT 1 FROM jsonb_array_elements(" + j.Path + ") j(x) WHERE ")
	switch kind {
	case sqlval.KindString:
		x := "(j.x #>> '{}')"
		if !cs {
			x = foldSQL(x)
		}
		b.W("jsonb_typeof(j.x) = 'string' AND "+x+` COLLATE "C" = `).Typed(v, "::text")
	case sqlval.KindNumber:
		b.W("(CASE WHEN jsonb_typeof(j.x) = 'number' THEN (j.x)::numeric END) = ").Typed(v, "::numeric")
	case sqlval.KindBool:
		b.W("j.x = '" + strconv.FormatBool(v.(bool)) + "'::jsonb")
	}
	b.W(")")
}
