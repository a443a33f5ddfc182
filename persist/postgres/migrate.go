package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one embedded schema step, named NNNN_description.sql.
type migration struct {
	version int64
	name    string
	sql     string
}

// migrations returns the embedded migrations in version order.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, errf("list migrations: %v", err)
	}
	out := make([]migration, 0, len(names))
	for _, n := range names {
		base := path.Base(n)
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil || v <= 0 {
			return nil, errf("migration %s: bad version %q", base, num)
		}
		b, err := migrationFS.ReadFile(n)
		if err != nil {
			return nil, errf("read migration %s: %v", base, err)
		}
		out = append(out, migration{version: v, name: base, sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, errf("migrations %s and %s share a version", out[i-1].name, out[i].name)
		}
	}
	return out, nil
}

// migrate creates the schema when missing and applies the migrations the
// database has not seen, all under a session advisory lock keyed by the
// schema, so replicas starting together apply each step once (the
// reference runs all DDL under an advisory lock). Each step commits with
// its schema_migrations row. With rls the row-level security policies are
// (re)installed under the same lock.
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string, lockKey int64, rls bool) (err error) {
	ms, err := migrations()
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return wrap("migrate: connect", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, lockKey); err != nil {
		return wrap("migrate: lock", err)
	}
	defer func() {
		// A fresh context: the lock must go even when ctx has ended.
		if _, uerr := conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, lockKey); uerr != nil && err == nil {
			err = wrap("migrate: unlock", uerr)
		}
	}()
	// CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege on the
	// database even when the schema exists, which an application role
	// given only its schema lacks: create it only when missing.
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
		return wrap("migrate: read schemas", err)
	}
	if !exists {
		if _, err := conn.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+quoteIdent(schema)); err != nil {
			return wrap("migrate: create schema", err)
		}
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version BIGINT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
		return wrap("migrate: create schema_migrations", err)
	}
	var newest int64
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&newest); err != nil {
		return wrap("migrate: read schema version", err)
	}
	if len(ms) > 0 && newest > ms[len(ms)-1].version {
		return errf("database schema version %d is newer than this build (%d)", newest, ms[len(ms)-1].version)
	}
	for _, m := range ms {
		if m.version <= newest {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, m.version)
			return err
		})
		if err != nil {
			return wrap(fmt.Sprintf("apply migration %s", m.name), err)
		}
	}
	if rls {
		return enableRLS(ctx, conn.Conn())
	}
	return nil
}
