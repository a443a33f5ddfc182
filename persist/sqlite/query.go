package sqlite

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
)

// inlineListMax is the longest list bound as one parameter per member;
// longer lists travel as one JSON array read through json_each, which keeps
// every statement far below SQLite's bound-parameter limit.
const inlineListMax = 200

// sqlb builds one SQL statement and its positional arguments.
type sqlb struct {
	sb   strings.Builder
	args []any
	// threadFirst keeps a metadata equality from driving the query when a
	// thread is given (meta), so the thread's index does, or a list of ids
	// (the primary key does).
	threadFirst bool
}

func (b *sqlb) w(s string) *sqlb {
	b.sb.WriteString(s)
	return b
}

// arg writes a placeholder bound to v.
func (b *sqlb) arg(v any) *sqlb {
	b.sb.WriteByte('?')
	b.args = append(b.args, v)
	return b
}

func (b *sqlb) String() string { return b.sb.String() }

// in writes a parenthesized IN operand holding vals.
func (b *sqlb) in(vals []string) *sqlb {
	if len(vals) > inlineListMax {
		enc, _ := json.Marshal(vals) // []string always encodes
		return b.w("(SELECT value FROM json_each(").arg(string(enc)).w("))")
	}
	b.w("(")
	for i, v := range vals {
		if i > 0 {
			b.w(", ")
		}
		b.arg(v)
	}
	return b.w(")")
}

// inAny writes a parenthesized list of placeholders bound to vals.
func (b *sqlb) inAny(vals []any) *sqlb {
	b.w("(")
	for i, v := range vals {
		if i > 0 {
			b.w(", ")
		}
		b.arg(v)
	}
	return b.w(")")
}

// readable writes the READ predicate of R-302 on the entry alias a:
// owner, public, or a grant (read or write) to the principal as a user or
// to one of its groups. The grant test is a correlated EXISTS, one probe of
// the (entry, principal) unique index per visited row: the right shape for
// statements that visit few rows (pages, lookups), whatever the number of
// grants a principal or group holds. The unary + keeps SQLite from driving
// the statement through a multi-index OR over owner and visibility, which
// would gather every readable row and sort it instead of walking the
// created_at order and stopping at the end of the page.
func (b *sqlb) readable(acc persist.Access, a string) *sqlb {
	b.w("(+" + a + ".owner_id = ").arg(acc.Principal)
	b.w(" OR +" + a + ".visibility = 'public' OR EXISTS (SELECT 1 FROM context_entry_grants g WHERE g.context_entry_id = " + a + ".id AND ")
	return b.principal(acc).w("))")
}

// readableBulk writes the same READ predicate for statements that visit
// every entry (statistics, thread lists): the grant test is an uncorrelated
// IN subquery that SQLite evaluates once, through the principal index, and
// then probes in memory.
func (b *sqlb) readableBulk(acc persist.Access, a string) *sqlb {
	b.w("(+" + a + ".owner_id = ").arg(acc.Principal)
	b.w(" OR +" + a + ".visibility = 'public' OR +" + a + ".id IN (SELECT g.context_entry_id FROM context_entry_grants g WHERE ")
	return b.principal(acc).w("))")
}

// inKnowledge is the SQL test "the entry of alias a is in a knowledge
// thread" (persist.IsKnowledgeThread), its constants spelled inline (they
// hold no quote). The unary + keeps the thread index from driving a
// statement that visits most entries anyway.
func inKnowledge(a string) string {
	return "(+" + a + ".thread_id = '" + persist.KnowledgeThread + "' OR substr(+" + a + ".thread_id, 1, " +
		strconv.Itoa(len(persist.KnowledgeThreadPrefix)) + ") = '" + persist.KnowledgeThreadPrefix + "')"
}

// notKnowledge writes "the entry of alias a is outside the knowledge
// threads".
func (b *sqlb) notKnowledge(a string) *sqlb { return b.w("NOT " + inKnowledge(a)) }

// aggregate writes the predicate of the aggregate views (list_threads,
// get_statistics and its coverage figures): readable (readableBulk) and
// outside the knowledge threads, which those views leave out
// (persist.KnowledgeThread).
func (b *sqlb) aggregate(acc persist.Access, a string) *sqlb {
	b.readableBulk(acc, a).w(" AND ")
	return b.notKnowledge(a)
}

// writable writes the WRITE predicate on the entry alias a: owner or a
// write grant to the principal or one of its groups.
func (b *sqlb) writable(acc persist.Access, a string) *sqlb {
	b.w("(" + a + ".owner_id = ").arg(acc.Principal)
	b.w(" OR EXISTS (SELECT 1 FROM context_entry_grants g WHERE g.context_entry_id = " + a + ".id AND g.permission = 'write' AND ")
	return b.principal(acc).w("))")
}

// principal writes the grant-row test "granted to the principal as a user
// or to one of its groups" on the grants alias g.
func (b *sqlb) principal(acc persist.Access) *sqlb {
	b.w("((g.principal_type = 'user' AND g.principal_id = ").arg(acc.Principal).w(")")
	if len(acc.Groups) > 0 {
		b.w(" OR (g.principal_type = 'group' AND g.principal_id IN ").in(acc.Groups).w(")")
	}
	return b.w(")")
}

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
// the entry alias e, AND-combined.
func (b *sqlb) filter(acc persist.Access, f persist.Filter) error {
	b.readable(acc, "e")
	// A list of ids (the in-process catalog's page) is read by primary
	// key, the other filters only re-check it: a unary + keeps the thread
	// and created_at indexes from driving. Without it SQLite walked the
	// thread's (thread_id, created_at) index past every one of its 12,500
	// entries for a page of three (2 ms of the 4.5 ms bench row "thread_id
	// + tags + status=blocked + start_date" at 100k entries).
	e := "e."
	if f.IDs != nil {
		e = "+e."
	}
	if f.ThreadID != "" {
		b.w(" AND " + e + "thread_id = ").arg(f.ThreadID)
	}
	if f.OmitKnowledge {
		b.w(" AND ").notKnowledge("e")
	}
	// The unary + keeps SQLite from driving the query with the indexes on
	// these two-valued columns: walking (thread_id,) created_at DESC and
	// stopping at the page end is far cheaper than sorting half the table.
	if f.Source != "" {
		b.w(" AND +e.source = ").arg(f.Source)
	}
	if f.ContentType != "" {
		b.w(" AND +e.content_type = ").arg(f.ContentType)
	}
	if len(f.Tags) > 0 {
		b.w(" AND EXISTS (SELECT 1 FROM tags t WHERE t.context_entry_id = e.id AND t.tag IN ").in(f.Tags).w(")")
	}
	if f.Start != nil {
		b.w(" AND " + e + "created_at >= ").arg(microsCeil(*f.Start))
	}
	if f.End != nil {
		b.w(" AND " + e + "created_at <= ").arg(micros(*f.End))
	}
	if p := f.Before; p != nil {
		at := micros(p.CreatedAt)
		b.w(" AND (e.created_at < ").arg(at).w(" OR (e.created_at = ").arg(at).w(" AND e.id < ").arg(p.ID).w("))")
	}
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			b.w(" AND 0")
		} else {
			b.w(" AND e.id IN ").in(f.IDs)
		}
	}
	// With a thread, its (thread_id, created_at) index drives the query
	// and the metadata conditions filter: at 100k entries in 8 threads,
	// walking a status index of 50,000 active entries for a thread that
	// holds none took 63 ms median against 25 ms for the thread's 12,500
	// (contextd bench, thread_id + status=active).
	b.threadFirst = f.ThreadID != "" || f.IDs != nil // ids: the primary key drives
	for i, c := range f.Meta {
		b.w(" AND ")
		if err := b.meta(c); err != nil {
			return fmt.Errorf("sqlite: metadata condition %d: %w", i, err)
		}
	}
	return nil
}

// jsonPath renders path segments as a SQL string literal holding the JSON
// path $."seg1"."seg2". Segments are validated by the engine; a segment that
// cannot be spelled as a quoted JSON path label is refused here, and single
// quotes are doubled, so the literal can never leave its quotes.
func jsonPath(segs []string) (string, error) {
	if len(segs) == 0 {
		return "", errors.New("empty metadata path")
	}
	var p strings.Builder
	p.WriteString(`'$`)
	for _, s := range segs {
		if s == "" || strings.ContainsAny(s, "\"\x00") || !utf8.ValidString(s) {
			return "", fmt.Errorf("metadata key segment %q cannot be used in a JSON path", s)
		}
		p.WriteString(`."`)
		p.WriteString(strings.ReplaceAll(s, "'", "''"))
		p.WriteString(`"`)
	}
	p.WriteString(`'`)
	return p.String(), nil
}

// numTypes is the json_type() test for a stored JSON number.
const numTypes = " IN ('integer', 'real')"

// meta writes one metadata condition of C.2.2 (type-strict; values are
// always bound, never interpolated).
func (b *sqlb) meta(c persist.MetaCond) error {
	p, err := jsonPath(c.Path)
	if err != nil {
		return err
	}
	doc := "e.metadata"
	if persist.BlobPath(c.Path) {
		// No such member in a knowledge thread (persist.BlobPath).
		doc = "(CASE WHEN " + inKnowledge("e") + " THEN NULL ELSE e.metadata END)"
	}
	typ := "json_type(" + doc + ", " + p + ")"
	val := "json_extract(" + doc + ", " + p + ")"
	// folded is the stored string as compared by the folding operators.
	folded := val
	fold := func(s string) string { return s }
	if !c.CaseSensitive {
		folded = "lower(" + val + ")"
		fold = sqlval.ASCIILower
	}
	kind, v, err := sqlval.KindOf(c.Value)
	if err != nil {
		return fmt.Errorf("operator %s: %w", c.Op, err)
	}
	switch c.Op {
	case "eq", "ne":
		neg := c.Op == "ne"
		switch kind {
		case sqlval.KindString:
			b.w("(" + typ + " = 'text' AND ")
			if neg {
				b.w(folded + " <> ").arg(fold(v.(string))).w(")")
				break
			}
			// The folded comparison is what the indexes of the indexed
			// fields hold (migration 0007: folded value, created_at, id),
			// so it drives the walk in page order for either case mode;
			// a case-sensitive match keeps the exact test as a residual.
			if b.threadFirst {
				b.w("+")
			}
			b.w("lower(" + val + ") = ").arg(sqlval.ASCIILower(v.(string)))
			if c.CaseSensitive {
				b.w(" AND " + val + " = ").arg(v.(string))
			}
			b.w(")")
		case sqlval.KindNumber:
			op := " = "
			if neg {
				op = " <> "
			}
			b.w("(" + typ + numTypes + " AND " + val + op).arg(v).w(")")
		case sqlval.KindBool:
			want := v.(bool) != neg
			b.w("(" + typ + " = '" + strconv.FormatBool(want) + "')")
		default:
			return fmt.Errorf("operator %s requires a non-null scalar value", c.Op)
		}
	case "gt", "gte", "lt", "lte":
		op := map[string]string{"gt": " > ", "gte": " >= ", "lt": " < ", "lte": " <= "}[c.Op]
		switch kind {
		case sqlval.KindString:
			b.w("(" + typ + " = 'text' AND " + val + op).arg(v).w(")")
		case sqlval.KindNumber:
			b.w("(" + typ + numTypes + " AND " + val + op).arg(v).w(")")
		default:
			return fmt.Errorf("operator %s requires a numeric or string value", c.Op)
		}
	case "in", "not_in":
		var strs, nums []any
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
				bools = append(bools, "'"+strconv.FormatBool(mv.(bool))+"'")
			}
		}
		if c.Op == "not_in" {
			b.w("(coalesce(" + typ + ", 'null') <> 'null' AND NOT coalesce(")
		}
		b.w("(0")
		if len(strs) > 0 {
			b.w(" OR (" + typ + " = 'text' AND " + folded + " IN ").inAny(strs).w(")")
		}
		if len(nums) > 0 {
			b.w(" OR (" + typ + numTypes + " AND " + val + " IN ").inAny(nums).w(")")
		}
		if len(bools) > 0 {
			b.w(" OR " + typ + " IN (" + strings.Join(bools, ", ") + ")")
		}
		b.w(")")
		if c.Op == "not_in" {
			b.w(", 0))")
		}
	case "exists", "is_not_null":
		if c.Op == "exists" {
			b.w("coalesce(" + typ + ", 'null') <> 'null'")
		} else {
			b.w("(" + typ + " IS NOT NULL AND " + typ + " <> 'null')")
		}
	case "not_exists":
		b.w("coalesce(" + typ + ", 'null') = 'null'")
	case "is_null":
		b.w("(" + typ + " IS NOT NULL AND " + typ + " = 'null')")
	case "contains", "starts_with", "ends_with":
		if kind != sqlval.KindString {
			return fmt.Errorf("operator %s requires a string value", c.Op)
		}
		needle := fold(v.(string))
		n := utf8.RuneCountInString(needle)
		b.w("(" + typ + " = 'text'")
		switch {
		case n == 0: // every string contains, starts and ends with ""
		case c.Op == "contains":
			b.w(" AND instr(" + folded + ", ").arg(needle).w(") > 0")
		case c.Op == "starts_with":
			b.w(" AND substr(" + folded + ", 1, ").arg(n).w(") = ").arg(needle)
		default:
			b.w(" AND length(" + val + ") >= ").arg(n)
			b.w(" AND substr(" + folded + ", ").arg(-n).w(") = ").arg(needle)
		}
		b.w(")")
	case "array_contains":
		b.w("(" + typ + " = 'array' AND EXISTS (SELECT 1 FROM json_each(" + doc + ", " + p + ") j WHERE ")
		switch kind {
		case sqlval.KindString:
			if c.CaseSensitive {
				b.w("j.type = 'text' AND j.value = ")
			} else {
				b.w("j.type = 'text' AND lower(j.value) = ")
			}
			b.arg(fold(v.(string)))
		case sqlval.KindNumber:
			b.w("j.type" + numTypes + " AND j.value = ").arg(v)
		case sqlval.KindBool:
			b.w("j.type = '" + strconv.FormatBool(v.(bool)) + "'")
		default:
			return fmt.Errorf("operator %s requires a non-null scalar value", c.Op)
		}
		b.w("))")
	default:
		return fmt.Errorf("unknown operator %q", c.Op)
	}
	return nil
}
