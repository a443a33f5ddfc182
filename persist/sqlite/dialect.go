package sqlite

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/contextd/contextd/persist/sqlstore"
	"github.com/contextd/contextd/persist/sqlval"
)

// inlineListMax is the longest list bound as one parameter per member;
// longer lists travel as one JSON array read through json_each, which keeps
// every statement far below SQLite's bound-parameter limit.
const inlineListMax = 200

// numTypes is the json_type() test for a stored JSON number.
const numTypes = " IN ('integer', 'real')"

// dialect is SQLite's spelling of the statements the SQL stores share
// (sqlstore.Dialect): ? placeholders, unary + planner hints, times as unix
// microseconds, JSON through json_type/json_extract.
type dialect struct{}

// Dialect is SQLite's spelling of the shared statements.
var Dialect sqlstore.Dialect = dialect{}

// sqlb is a statement builder in SQLite's dialect.
type sqlb = sqlstore.Builder

func newB() *sqlb { return sqlstore.NewBuilder(Dialect) }

func (dialect) Name() string       { return "sqlite" }
func (dialect) Dollar() bool       { return false }
func (dialect) Hint() string       { return "+" }
func (dialect) BulkReadable() bool { return true }
func (dialect) False() string      { return "0" }

// In writes col IN (?, ...), or IN json_each of one bound JSON array for a
// list longer than inlineListMax; an empty list is 0.
func (dialect) In(b *sqlb, col string, vals []string) {
	if len(vals) == 0 {
		b.W("0")
		return
	}
	b.W(col + " IN ")
	if len(vals) > inlineListMax {
		enc, _ := json.Marshal(vals) // []string always encodes
		b.W("(SELECT value FROM json_each(").Arg(string(enc)).W("))")
		return
	}
	inline(b, vals)
}

// inline writes a parenthesized list of placeholders bound to vals.
func inline[T any](b *sqlb, vals []T) {
	b.W("(")
	for i, v := range vals {
		if i > 0 {
			b.W(", ")
		}
		b.Arg(v)
	}
	b.W(")")
}

func (dialect) Left(x string, n int) string { return "substr(" + x + ", 1, " + strconv.Itoa(n) + ")" }
func (dialect) Time(t time.Time) any        { return micros(t) }
func (dialect) TimeCeil(t time.Time) any    { return microsCeil(t) }

func (dialect) Before(b *sqlb, at any, id string) {
	b.W("(e.created_at < ").Arg(at).W(" OR (e.created_at = ").Arg(at).W(" AND e.id < ").Arg(id).W("))")
}

// Limit is -1 for no limit (SQLite's LIMIT takes no NULL).
func (dialect) Limit(n int) any {
	if n <= 0 {
		return -1
	}
	return n
}

func (dialect) Count(n int) any { return n }

func (dialect) Wrap(what string, err error) error { return fmt.Errorf("sqlite: %s: %w", what, err) }

func (dialect) Errf(format string, args ...any) error {
	return fmt.Errorf("sqlite: "+format, args...)
}

// Path reads the path $."seg1"."seg2" with json_type and json_extract.
func (dialect) Path(doc string, segs []string) sqlstore.JSONExpr {
	p := `'$`
	for _, s := range segs {
		p += `."` + s + `"`
	}
	p += `'`
	typ := "json_type(" + doc + ", " + p + ")"
	val := "json_extract(" + doc + ", " + p + ")"
	return sqlstore.JSONExpr{Doc: doc, Path: p, Type: typ, Val: val, Fold: "lower(" + val + ")", Num: val, Bool: typ}
}

func (dialect) StringType() string        { return " = 'text'" }
func (dialect) NumberType() string        { return numTypes }
func (dialect) BoolLit(v bool) string     { return "'" + strconv.FormatBool(v) + "'" }
func (dialect) StrIn(b *sqlb, v []string) { b.W(" IN "); inline(b, v) }

// EqString compares folded values whatever the case mode: the folded
// value is what the indexes of the indexed fields hold (migration 0007:
// folded value, created_at, id), so it drives the walk in page order; a
// case-sensitive match keeps the exact test as a residual.
func (dialect) EqString(b *sqlb, j sqlstore.JSONExpr, v string, cs bool) {
	b.W("(" + j.Type + " = 'text' AND ")
	if b.ThreadFirst {
		b.W("+")
	}
	b.W(j.Fold + " = ").Arg(sqlval.ASCIILower(v))
	if cs {
		b.W(" AND " + j.Val + " = ").Arg(v)
	}
	b.W(")")
}

func (dialect) NotNull(j sqlstore.JSONExpr) string {
	return "(" + j.Type + " IS NOT NULL AND " + j.Type + " <> 'null')"
}

func (dialect) IsNull(j sqlstore.JSONExpr) string {
	return "(" + j.Type + " IS NOT NULL AND " + j.Type + " = 'null')"
}

func (dialect) Match(b *sqlb, j sqlstore.JSONExpr, op, needle string, n int) {
	switch op {
	case "contains":
		b.W(" AND instr(" + j.Fold + ", ").Arg(needle).W(") > 0")
	case "starts_with":
		b.W(" AND substr(" + j.Fold + ", 1, ").Arg(n).W(") = ").Arg(needle)
	default:
		b.W(" AND length(" + j.Val + ") >= ").Arg(n)
		b.W(" AND substr(" + j.Fold + ", ").Arg(-n).W(") = ").Arg(needle)
	}
}

func (dialect) ArrayContains(b *sqlb, j sqlstore.JSONExpr, kind int, v any, cs bool) {
	b.W("EXISTS (SELECT 1 FROM json_each(" + j.Doc + ", " + j.Path + ") j WHERE ")
	switch kind {
	case sqlval.KindString:
		if cs {
			b.W("j.type = 'text' AND j.value = ")
		} else {
			b.W("j.type = 'text' AND lower(j.value) = ")
		}
		b.Arg(v)
	case sqlval.KindNumber:
		b.W("j.type" + numTypes + " AND j.value = ").Arg(v)
	case sqlval.KindBool:
		b.W("j.type = '" + strconv.FormatBool(v.(bool)) + "'")
	}
	b.W(")")
}
