package sqlstore

import (
	"fmt"
	"strings"

	"github.com/contextd/contextd/persist"
)

// Readable writes the READ predicate on the entry alias a: owner, public,
// or a grant (read or write) to the principal as a user or to one of its
// groups. The grant test is a correlated EXISTS, one probe of the
// (entry, principal) unique index per visited row: the right shape for
// statements that visit few rows (pages, lookups), whatever the number of
// grants a principal or group holds. On SQLite the unary + (Dialect.Hint)
// keeps the planner from driving the statement through a multi-index OR
// over owner and visibility, which would gather every readable row and
// sort it instead of walking the created_at order and stopping at the end
// of the page.
func (b *Builder) Readable(acc persist.Access, a string) *Builder {
	h := b.d.Hint()
	b.W("(" + h + a + ".owner_id = ").Arg(acc.Principal)
	b.W(" OR " + h + a + ".visibility = 'public' OR EXISTS (SELECT 1 FROM context_entry_grants g WHERE g.context_entry_id = " + a + ".id AND ")
	return b.principal(acc).W("))")
}

// ReadableBulk writes the same READ predicate for statements that visit
// every entry (statistics, thread lists): the grant test is an
// uncorrelated IN subquery that SQLite evaluates once, through the
// principal index, and then probes in memory.
func (b *Builder) ReadableBulk(acc persist.Access, a string) *Builder {
	h := b.d.Hint()
	b.W("(" + h + a + ".owner_id = ").Arg(acc.Principal)
	b.W(" OR " + h + a + ".visibility = 'public' OR " + h + a + ".id IN (SELECT g.context_entry_id FROM context_entry_grants g WHERE ")
	return b.principal(acc).W("))")
}

// Writable writes the WRITE predicate on the entry alias a: owner or a
// write grant to the principal or one of its groups.
func (b *Builder) Writable(acc persist.Access, a string) *Builder {
	b.W("(" + a + ".owner_id = ").Arg(acc.Principal)
	b.W(" OR EXISTS (SELECT 1 FROM context_entry_grants g WHERE g.context_entry_id = " + a + ".id AND g.permission = 'write' AND ")
	return b.principal(acc).W("))")
}

// principal writes the grant-row test "granted to the principal as a user
// or to one of its groups" on the grants alias g.
func (b *Builder) principal(acc persist.Access) *Builder {
	b.W("((g.principal_type = 'user' AND g.principal_id = ").Arg(acc.Principal).W(")")
	if len(acc.Groups) > 0 {
		b.W(" OR (g.principal_type = 'group' AND ").IsIn("g.principal_id", acc.Groups).W(")")
	}
	return b.W(")")
}

// InKnowledge is the SQL test "the entry of alias a is in a knowledge
// thread" (persist.IsKnowledgeThread), its constants spelled inline (they
// hold no quote). The hint keeps the thread index from driving a
// statement that visits most entries anyway.
func InKnowledge(d Dialect, a string) string {
	col := d.Hint() + a + ".thread_id"
	return "(" + col + " = '" + persist.KnowledgeThread + "' OR " +
		d.Left(col, len(persist.KnowledgeThreadPrefix)) + " = '" + persist.KnowledgeThreadPrefix + "')"
}

// NotKnowledge writes "the entry of alias a is outside the knowledge
// threads".
func (b *Builder) NotKnowledge(a string) *Builder { return b.W("NOT " + InKnowledge(b.d, a)) }

// Aggregate writes the predicate of the aggregate views (list_threads,
// get_statistics and its coverage figures): readable and outside the
// knowledge threads, which those views leave out (persist.KnowledgeThread).
func (b *Builder) Aggregate(acc persist.Access, a string) *Builder {
	if b.d.BulkReadable() {
		b.ReadableBulk(acc, a)
	} else {
		b.Readable(acc, a)
	}
	return b.W(" AND ").NotKnowledge(a)
}

// AggregateFrom writes the FROM clause of an aggregate view: the
// readable entries outside the knowledge threads under the alias a, of
// which the statement uses only the columns cols, then join (the
// statement's joins with their ON conditions, or ""), then " WHERE " and
// the predicate left to test. The statement continues with GROUP BY or
// its end.
//
// For a caller who may read a small share of the store (acc.Narrow) the
// rows are gathered as three disjoint parts, each through its own index:
// the caller's own entries (owner_id), the public entries of others (the
// partial public index) and the entries granted to the caller and not
// already counted (the grants' principal index). The work is then
// proportional to what the caller may read: with Alice's 500 entries
// and another principal's 15,000 private ones, the whole-table plan
// visits all 15,500 rows. For a caller who reads most of the store one
// pass over the table is cheaper (at 100,000 entries of one owner on
// SQLite, 72-90 ms against 217-276 ms of CPU for the entry counts and
// 63-72 ms against 335-378 ms for the tag counts), so the engine sets
// Narrow only when its catalog says the readable share is small.
func (b *Builder) AggregateFrom(acc persist.Access, a string, cols []string, join string, entriesFirst bool) *Builder {
	if join != "" {
		kw := " JOIN "
		if entriesFirst || acc.Narrow {
			kw = " " + b.d.TagJoin() + " "
		}
		join = kw + join
	}
	if !acc.Narrow {
		return b.W("context_entries "+a+join+" WHERE ").Aggregate(acc, a)
	}
	b.W("(").NarrowRows(acc, "x."+strings.Join(cols, ", x."))
	return b.W(") " + a + join + " WHERE TRUE")
}

// NarrowRows writes the three disjoint parts of AggregateFrom's narrow
// plan, selecting the list sel over the entry alias x: the caller's own
// entries, the public entries of others and the entries granted to the
// caller, each outside the knowledge threads.
func (b *Builder) NarrowRows(acc persist.Access, sel string) *Builder {
	sel = "SELECT " + sel + " FROM context_entries x WHERE "
	b.W(sel + "x.owner_id = ").Arg(acc.Principal).W(" AND ").NotKnowledge("x")
	b.W(" UNION ALL " + sel + "x.visibility = 'public' AND x.owner_id <> ").Arg(acc.Principal).W(" AND ").NotKnowledge("x")
	b.W(" UNION ALL " + sel + "x.id IN (SELECT g.context_entry_id FROM context_entry_grants g WHERE ")
	return b.principal(acc).W(") AND x.owner_id <> ").Arg(acc.Principal).W(" AND x.visibility <> 'public' AND ").NotKnowledge("x")
}

// Filter writes the access predicate and every structural filter of f on
// the entry alias e, AND-combined. A refused metadata condition is an
// error naming its position.
func (b *Builder) Filter(acc persist.Access, f persist.Filter) error {
	d := b.d
	h := d.Hint()
	b.Readable(acc, "e")
	// A list of ids (the in-process catalog's page) is read by primary
	// key, the other filters only re-check it: the hint keeps the thread
	// and created_at indexes from driving. Without it SQLite walked the
	// thread's (thread_id, created_at) index past every one of its 12,500
	// entries for a page of three (2 ms of the 4.5 ms bench row "thread_id
	// + tags + status=blocked + start_date" at 100k entries).
	e := "e."
	if f.IDs != nil {
		e = h + "e."
	}
	if f.ThreadID != "" {
		b.W(" AND " + e + "thread_id = ").Arg(f.ThreadID)
	}
	if f.OmitKnowledge {
		b.W(" AND ").NotKnowledge("e")
	}
	// The hint keeps SQLite from driving the query with the indexes on
	// these two-valued columns: walking (thread_id,) created_at DESC and
	// stopping at the page end is far cheaper than sorting half the table.
	if f.Source != "" {
		b.W(" AND " + h + "e.source = ").Arg(f.Source)
	}
	if f.ContentType != "" {
		b.W(" AND " + h + "e.content_type = ").Arg(f.ContentType)
	}
	if len(f.Tags) > 0 {
		b.W(" AND EXISTS (SELECT 1 FROM tags t WHERE t.context_entry_id = e.id AND ").IsIn("t.tag", f.Tags).W(")")
	}
	if f.Start != nil {
		b.W(" AND " + e + "created_at >= ").Arg(d.TimeCeil(*f.Start))
	}
	if f.End != nil {
		b.W(" AND " + e + "created_at <= ").Arg(d.Time(*f.End))
	}
	if p := f.Before; p != nil {
		b.W(" AND ")
		d.Before(b, d.Time(p.CreatedAt), p.ID)
	}
	if f.IDs != nil {
		b.W(" AND ").IsIn("e.id", f.IDs)
	}
	// With a thread, its (thread_id, created_at) index drives the query
	// and the metadata conditions filter: at 100k entries in 8 threads,
	// walking a status index of 50,000 active entries for a thread that
	// holds none took 63 ms median against 25 ms for the thread's 12,500
	// (contextd bench, thread_id + status=active).
	b.ThreadFirst = f.ThreadID != "" || f.IDs != nil // ids: the primary key drives
	for i, c := range f.Meta {
		b.W(" AND ")
		if err := b.meta(c); err != nil {
			return fmt.Errorf("metadata condition %d: %w", i, err)
		}
	}
	return nil
}

// SearchSQL builds the page query of q (newest first), selecting cols.
func SearchSQL(d Dialect, acc persist.Access, q persist.SearchQuery, cols string) (*Builder, error) {
	b := NewBuilder(d)
	b.W("SELECT " + cols + " FROM context_entries e WHERE ")
	if err := b.Filter(acc, q.Filter); err != nil {
		return nil, err
	}
	b.W(" ORDER BY e.created_at DESC, e.id DESC LIMIT ").Typed(d.Limit(q.Limit), "::bigint")
	b.W(" OFFSET ").Typed(d.Count(max(q.Offset, 0)), "::bigint")
	return b, nil
}
