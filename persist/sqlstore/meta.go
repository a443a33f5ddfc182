package sqlstore

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
)

// pathSegs checks the segments of a metadata path and returns them with
// single quotes doubled, ready for a SQL string literal. Segments are
// validated by the engine; one that is empty, holds '"' or NUL or is not
// UTF-8 is refused here ('"' because SQLite's JSON path labels cannot hold
// it, and both stores accept the same conditions), so a literal can never
// leave its quotes.
func pathSegs(segs []string) ([]string, error) {
	if len(segs) == 0 {
		return nil, errors.New("empty metadata path")
	}
	out := make([]string, len(segs))
	for i, s := range segs {
		if s == "" || strings.ContainsAny(s, "\"\x00") || !utf8.ValidString(s) {
			return nil, fmt.Errorf("metadata key segment %q cannot be used in a JSON path", s)
		}
		out[i] = strings.ReplaceAll(s, "'", "''")
	}
	return out, nil
}

var cmpOps = map[string]string{"gt": " > ", "gte": " >= ", "lt": " < ", "lte": " <= "}

// meta writes one metadata condition (type-strict: a JSON string never
// equals a number or a boolean, so "1" never equals 1; strings compare in
// byte order; values are always bound, never interpolated).
func (b *Builder) meta(c persist.MetaCond) error {
	segs, err := pathSegs(c.Path)
	if err != nil {
		return err
	}
	d := b.d
	doc := "e.metadata"
	if persist.BlobPath(c.Path) {
		// No such member in a knowledge thread (persist.BlobPath).
		doc = "(CASE WHEN " + InKnowledge(d, "e") + " THEN NULL ELSE e.metadata END)"
	}
	j := d.Path(doc, segs)
	str, num := j.Type+d.StringType(), j.Type+d.NumberType()
	// folded is the stored string as compared by the folding operators.
	folded := j.Val
	fold := func(s string) string { return s }
	if !c.CaseSensitive {
		folded = j.Fold
		fold = sqlval.ASCIILower
	}
	kind, v, err := sqlval.KindOf(c.Value)
	if err != nil {
		return fmt.Errorf("operator %s: %w", c.Op, err)
	}
	switch c.Op {
	case "eq", "ne":
		neg := c.Op == "ne"
		op := " = "
		if neg {
			op = " <> "
		}
		switch kind {
		case sqlval.KindString:
			if neg {
				b.W("("+str+" AND "+folded+op).Typed(fold(v.(string)), "::text").W(")")
			} else {
				d.EqString(b, j, v.(string), c.CaseSensitive)
			}
		case sqlval.KindNumber:
			b.W("("+num+" AND "+j.Num+op).Typed(v, "::numeric").W(")")
		case sqlval.KindBool:
			b.W("(" + j.Bool + " = " + d.BoolLit(v.(bool) != neg) + ")")
		default:
			return fmt.Errorf("operator %s requires a non-null scalar value", c.Op)
		}
	case "gt", "gte", "lt", "lte":
		op := cmpOps[c.Op]
		switch kind {
		case sqlval.KindString:
			b.W("("+str+" AND "+j.Val+op).Typed(v, "::text").W(")")
		case sqlval.KindNumber:
			b.W("("+num+" AND "+j.Num+op).Typed(v, "::numeric").W(")")
		default:
			return fmt.Errorf("operator %s requires a numeric or string value", c.Op)
		}
	case "in", "not_in":
		return b.metaIn(c, j, folded, fold)
	case "exists":
		// A missing key and a JSON null are alike to these operators.
		b.W("coalesce(" + j.Type + ", 'null') <> 'null'")
	case "is_not_null":
		b.W(d.NotNull(j))
	case "not_exists":
		b.W("coalesce(" + j.Type + ", 'null') = 'null'")
	case "is_null":
		b.W(d.IsNull(j))
	case "contains", "starts_with", "ends_with":
		if kind != sqlval.KindString {
			return fmt.Errorf("operator %s requires a string value", c.Op)
		}
		needle := fold(v.(string))
		b.W("(" + str)
		// Every string contains, starts and ends with "".
		if n := utf8.RuneCountInString(needle); n > 0 {
			d.Match(b, JSONExpr{Type: j.Type, Val: j.Val, Fold: folded}, c.Op, needle, n)
		}
		b.W(")")
	case "array_contains":
		if kind == sqlval.KindNone {
			return fmt.Errorf("operator %s requires a non-null scalar value", c.Op)
		}
		if kind == sqlval.KindString {
			v = fold(v.(string))
		}
		b.W("(" + j.Type + " = 'array' AND ")
		d.ArrayContains(b, j, kind, v, c.CaseSensitive)
		b.W(")")
	default:
		return fmt.Errorf("unknown operator %q", c.Op)
	}
	return nil
}

// metaIn writes an in or not_in condition: the members of each kind are
// compared with the values of that kind.
func (b *Builder) metaIn(c persist.MetaCond, j JSONExpr, folded string, fold func(string) string) error {
	d := b.d
	var strs []string
	var nums []any
	var bools []string
	for _, m := range c.Values {
		k, mv, err := sqlval.KindOf(m)
		if err != nil {
			return fmt.Errorf("operator %s: %w", c.Op, err)
		}
		switch k {
		case sqlval.KindString:
			strs = append(strs, fold(mv.(string)))
		case sqlval.KindNumber:
			nums = append(nums, mv)
		case sqlval.KindBool:
			bools = append(bools, d.BoolLit(mv.(bool)))
		}
	}
	if c.Op == "not_in" {
		b.W("(coalesce(" + j.Type + ", 'null') <> 'null' AND NOT coalesce(")
	}
	b.W("(" + d.False())
	if len(strs) > 0 {
		b.W(" OR (" + j.Type + d.StringType() + " AND " + folded)
		d.StrIn(b, strs)
		b.W(")")
	}
	if len(nums) > 0 {
		b.W(" OR (" + j.Type + d.NumberType() + " AND " + j.Num + " IN (")
		for i, n := range nums {
			if i > 0 {
				b.W(", ")
			}
			b.Typed(n, "::numeric")
		}
		b.W("))")
	}
	if len(bools) > 0 {
		b.W(" OR " + j.Bool + " IN (" + strings.Join(bools, ", ") + ")")
	}
	b.W(")")
	if c.Op == "not_in" {
		b.W(", " + d.False() + "))")
	}
	return nil
}
