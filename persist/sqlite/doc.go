// Package sqlite implements persist.Store on SQLite through the pure-Go
// driver modernc.org/sqlite (no cgo).
//
// It owns the SQLite schema of contextd (versioned migrations embedded from
// migrations/*.sql and recorded in schema_migrations), the connection setup
// (pragmas from Options, one serialized writer using BEGIN IMMEDIATE, a pool
// of query-only readers), the SQL form of the access predicates, the
// structural and metadata filters, and the change log written in the same
// transaction as every mutation.
//
//	st, err := sqlite.Open(ctx, sqlite.Options{Path: "/var/lib/contextd/context.db"})
//	if err != nil {
//		return err
//	}
//	defer st.Close()
//	err = st.Write(ctx, func(tx persist.Tx) error { return tx.Insert(ctx, &entry, nil) })
//	page, err := st.Search(ctx, persist.Access{Principal: "local"},
//		persist.SearchQuery{Filter: persist.Filter{ThreadID: "t1"}, Limit: 30})
//
// Path ":memory:" opens a private in-memory database (one per Open), which
// lives until Close.
package sqlite
