// Package postgres is the PostgreSQL store of contextd (STORAGE_BACKEND=
// postgresql): it implements the storage contract of package persist on
// pgx v5 and pgxpool. Importing it registers the "postgresql" backend, so
// contextd.Open can open a store from a connection URL:
//
//	import _ "github.com/contextd/contextd/persist/postgres"
//
//	eng, err := contextd.Open(ctx, contextd.Config{Storage: persist.OpenConfig{
//		Backend: "postgresql",
//		URL:     "postgres://user:pass@db.example:5432/mcp_context",
//		Options: postgres.Options{Schema: "public"},
//	}})
//
// The schema is created and migrated at start-up, under an advisory lock so
// that replicas starting together apply each step once. Writes serialize on
// a transaction-scoped advisory lock, so the change log's sequence numbers
// are gap-free and in commit order; after each commit a NOTIFY wakes the
// change-log followers of every replica (LISTEN), which then catch up by
// sequence number. Full-text search can run in PostgreSQL (tsvector) and
// vector search in pgvector when SEARCH_BACKEND=native; row-level security
// policies (ENABLE_POSTGRESQL_RLS) add a database-side check of the access
// rules. Driver errors never reach callers in their own words: they are
// reported as fixed kinds ("connection failed", "unique violation") that
// map to contextd's sentinel errors, with the driver's error kept for logs
// (Cause). See docs/postgresql.md.
package postgres
