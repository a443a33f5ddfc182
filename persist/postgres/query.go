package postgres

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
)

// sqlb builds one SQL statement and its positional ($n) arguments.
type sqlb struct {
	sb   strings.Builder
	args []any
}

func (b *sqlb) w(s string) *sqlb {
	b.sb.WriteString(s)
	return b
}

// arg writes a placeholder bound to v.
func (b *sqlb) arg(v any) *sqlb {
	b.args = append(b.args, v)
	b.sb.WriteString("$" + strconv.Itoa(len(b.args)))
	return b
}

// typed writes a placeholder bound to v with a cast, e.g. "::text[]".
func (b *sqlb) typed(v any, cast string) *sqlb { return b.arg(v).w(cast) }

func (b *sqlb) String() string { return b.sb.String() }

// anyOf writes "= ANY($n::text[])": one parameter whatever the list
// length (PostgreSQL caps a statement at 65,535 parameters).
func (b *sqlb) anyOf(vals []string) *sqlb {
	if vals == nil {
		vals = []string{}
	}
	return b.w(" = ANY(").typed(vals, "::text[]").w(")")
}

// readable writes the READ predicate of R-302 on the entry alias a: owner,
// public, or a grant (read or write) to the principal as a user or to one
// of its groups. The grant test is a correlated EXISTS probing the unique
// (entry, type, principal, permission) index.
func (b *sqlb) readable(acc persist.Access, a string) *sqlb {
	b.w("(" + a + ".owner_id = ").arg(acc.Principal)
	b.w(" OR " + a + ".visibility = 'public' OR EXISTS (SELECT 1 FROM context_entry_grants g WHERE g.context_entry_id = " + a + ".id AND ")
	return b.principal(acc).w("))")
}

// inKnowledge is the SQL test "the entry of alias a is in a knowledge
// thread" (persist.IsKnowledgeThread), its constants spelled inline (they
// hold no quote).
func inKnowledge(a string) string {
	return "(" + a + ".thread_id = '" + persist.KnowledgeThread + "' OR left(" + a + ".thread_id, " +
		strconv.Itoa(len(persist.KnowledgeThreadPrefix)) + ") = '" + persist.KnowledgeThreadPrefix + "')"
}

// notKnowledge writes "the entry of alias a is outside the knowledge
// threads".
func (b *sqlb) notKnowledge(a string) *sqlb { return b.w("NOT " + inKnowledge(a)) }

// aggregate writes the predicate of the aggregate views (list_threads,
// get_statistics and its coverage figures): readable and outside the
// knowledge threads, which those views leave out (persist.KnowledgeThread).
func (b *sqlb) aggregate(acc persist.Access, a string) *sqlb {
	b.readable(acc, a).w(" AND ")
	return b.notKnowledge(a)
}

// writable writes the WRITE predicate on the entry alias a: owner or a
// write grant to the principal or one of its groups.
func (b *sqlb) writable(acc persist.Access, a string) *sqlb {
	b.w("(" + a + ".owner_id = ").arg(acc.Principal)
	b.w(" OR EXISTS (SELECT 1 FROM context_entry_grants g WHERE g.context_entry_id = " + a + ".id AND g.permission = 'write' AND ")
	return b.principal(acc).w("))")
}

// principal writes "granted to the principal as a user or to one of its
// groups" on the grants alias g.
func (b *sqlb) principal(acc persist.Access) *sqlb {
	b.w("((g.principal_type = 'user' AND g.principal_id = ").arg(acc.Principal).w(")")
	if len(acc.Groups) > 0 {
		b.w(" OR (g.principal_type = 'group' AND g.principal_id").anyOf(acc.Groups).w(")")
	}
	return b.w(")")
}

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

// filter writes the access predicate and every structural filter of f on
// the entry alias e, AND-combined.
func (b *sqlb) filter(acc persist.Access, f persist.Filter) error {
	b.readable(acc, "e")
	if f.ThreadID != "" {
		b.w(" AND e.thread_id = ").arg(f.ThreadID)
	}
	if f.OmitKnowledge {
		b.w(" AND ").notKnowledge("e")
	}
	if f.Source != "" {
		b.w(" AND e.source = ").arg(f.Source)
	}
	if f.ContentType != "" {
		b.w(" AND e.content_type = ").arg(f.ContentType)
	}
	if len(f.Tags) > 0 {
		b.w(" AND EXISTS (SELECT 1 FROM tags t WHERE t.context_entry_id = e.id AND t.tag").anyOf(f.Tags).w(")")
	}
	if f.Start != nil {
		b.w(" AND e.created_at >= ").arg(tsCeil(*f.Start))
	}
	if f.End != nil {
		b.w(" AND e.created_at <= ").arg(ts(*f.End))
	}
	if p := f.Before; p != nil {
		at := ts(p.CreatedAt)
		b.w(" AND (e.created_at, e.id) < (").arg(at).w(", ").typed(p.ID, "::text").w(")")
	}
	if f.IDs != nil {
		b.w(" AND e.id").anyOf(f.IDs)
	}
	for i, c := range f.Meta {
		b.w(" AND ")
		if err := b.meta(c); err != nil {
			return errf("metadata condition %d: %v", i, err)
		}
	}
	return nil
}

// jsonPath renders path segments as a jsonb path expression on e.metadata:
// metadata -> 'a' for one segment (the spelling of the expression indexes
// of migration 0001), metadata #> ARRAY['a','b'] for several. Segments are
// validated by the engine; one that is empty, holds NUL or is not UTF-8 is
// refused here, and single quotes are doubled, so a literal can never
// leave its quotes.
func jsonPath(segs []string) (asJSON, asText string, err error) {
	if len(segs) == 0 {
		return "", "", errors.New("empty metadata path")
	}
	lits := make([]string, len(segs))
	for i, s := range segs {
		// '"' is refused as on SQLite (whose JSON path labels cannot hold
		// it), so both stores accept the same conditions.
		if s == "" || strings.ContainsAny(s, "\"\x00") || !utf8.ValidString(s) {
			return "", "", fmt.Errorf("metadata key segment %q cannot be used in a JSON path", s)
		}
		lits[i] = "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	if len(segs) == 1 {
		return "(e.metadata -> " + lits[0] + ")", "(e.metadata ->> " + lits[0] + ")", nil
	}
	arr := "ARRAY[" + strings.Join(lits, ", ") + "]::text[]"
	return "(e.metadata #> " + arr + ")", "(e.metadata #>> " + arr + ")", nil
}

// foldSQL is the SQL of sqlval.ASCIILower applied to x.
func foldSQL(x string) string {
	return "translate(" + x + ", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
}

// numSQL binds a number as numeric.
func (b *sqlb) num(v any) *sqlb { return b.typed(v, "::numeric") }

// meta writes one metadata condition of C.2.2 (type-strict; values are
// always bound, never interpolated). jsonb_typeof tells a JSON string from
// a number or a boolean, so "1" never equals 1; strings compare in byte
// order (COLLATE "C"), as on SQLite.
func (b *sqlb) meta(c persist.MetaCond) error {
	jv, tv, err := jsonPath(c.Path)
	if err != nil {
		return err
	}
	if persist.BlobPath(c.Path) {
		// No such member in a knowledge thread (persist.BlobPath).
		doc := "(CASE WHEN " + inKnowledge("e") + " THEN NULL ELSE e.metadata END)"
		jv, tv = strings.Replace(jv, "e.metadata", doc, 1), strings.Replace(tv, "e.metadata", doc, 1)
	}
	typ := "jsonb_typeof(" + jv + ")"
	val := tv + ` COLLATE "C"`
	folded := val
	fold := func(s string) string { return s }
	if !c.CaseSensitive {
		folded = foldSQL(tv) + ` COLLATE "C"`
		fold = sqlval.ASCIILower
	}
	// PostgreSQL does not promise to evaluate AND left to right, so the
	// cast to numeric is guarded by CASE: a string value never reaches it.
	numVal := "(CASE WHEN " + typ + " = 'number' THEN (" + jv + ")::numeric END)"
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
			b.w("("+typ+" = 'string' AND "+folded+op).typed(fold(v.(string)), "::text").w(")")
		case sqlval.KindNumber:
			b.w("(" + typ + " = 'number' AND " + numVal + op).num(v).w(")")
		case sqlval.KindBool:
			want := v.(bool) != neg
			b.w("(" + jv + " = '" + strconv.FormatBool(want) + "'::jsonb)")
		default:
			return fmt.Errorf("operator %s requires a non-null scalar value", c.Op)
		}
	case "gt", "gte", "lt", "lte":
		op := map[string]string{"gt": " > ", "gte": " >= ", "lt": " < ", "lte": " <= "}[c.Op]
		switch kind {
		case sqlval.KindString:
			b.w("("+typ+" = 'string' AND "+val+op).typed(v, "::text").w(")")
		case sqlval.KindNumber:
			b.w("(" + typ + " = 'number' AND " + numVal + op).num(v).w(")")
		default:
			return fmt.Errorf("operator %s requires a numeric or string value", c.Op)
		}
	case "in", "not_in":
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
				bools = append(bools, "'"+strconv.FormatBool(mv.(bool))+"'::jsonb")
			}
		}
		if c.Op == "not_in" {
			b.w("(coalesce(" + typ + ", 'null') <> 'null' AND NOT coalesce(")
		}
		b.w("(false")
		if len(strs) > 0 {
			b.w(" OR (" + typ + " = 'string' AND " + folded).anyOf(strs).w(")")
		}
		if len(nums) > 0 {
			b.w(" OR (" + typ + " = 'number' AND " + numVal + " IN (")
			for i, n := range nums {
				if i > 0 {
					b.w(", ")
				}
				b.num(n)
			}
			b.w("))")
		}
		if len(bools) > 0 {
			b.w(" OR " + jv + " IN (" + strings.Join(bools, ", ") + ")")
		}
		b.w(")")
		if c.Op == "not_in" {
			b.w(", false))")
		}
	case "exists", "is_not_null":
		// A missing key and a JSON null are alike to both operators.
		b.w("coalesce(" + typ + ", 'null') <> 'null'")
	case "not_exists":
		b.w("coalesce(" + typ + ", 'null') = 'null'")
	case "is_null":
		b.w("(" + typ + " = 'null')")
	case "contains", "starts_with", "ends_with":
		if kind != sqlval.KindString {
			return fmt.Errorf("operator %s requires a string value", c.Op)
		}
		needle := fold(v.(string))
		n := utf8.RuneCountInString(needle)
		b.w("(" + typ + " = 'string'")
		switch {
		case n == 0: // every string contains, starts and ends with ""
		case c.Op == "contains":
			b.w(" AND strpos("+folded+", ").typed(needle, "::text").w(") > 0")
		case c.Op == "starts_with":
			b.w(" AND left("+folded+", ").typed(n, "::int").w(") = ").typed(needle, "::text")
		default:
			b.w(" AND right("+folded+", ").typed(n, "::int").w(") = ").typed(needle, "::text")
		}
		b.w(")")
	case "array_contains":
		b.w("(" + typ + " = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements(" + jv + ") j(x) WHERE ")
		switch kind {
		case sqlval.KindString:
			x := "(j.x #>> '{}')"
			if !c.CaseSensitive {
				x = foldSQL(x)
			}
			b.w("jsonb_typeof(j.x) = 'string' AND "+x+` COLLATE "C" = `).typed(fold(v.(string)), "::text")
		case sqlval.KindNumber:
			b.w("(CASE WHEN jsonb_typeof(j.x) = 'number' THEN (j.x)::numeric END) = ").num(v)
		case sqlval.KindBool:
			b.w("j.x = '" + strconv.FormatBool(v.(bool)) + "'::jsonb")
		default:
			return fmt.Errorf("operator %s requires a non-null scalar value", c.Op)
		}
		b.w("))")
	default:
		return fmt.Errorf("unknown operator %q", c.Op)
	}
	return nil
}
