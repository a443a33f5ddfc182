package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contextd/contextd/persist/sqlstore"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrations returns the embedded migrations in version order.
func migrations() ([]sqlstore.Migration, error) { return sqlstore.Migrations(Dialect, migrationFS) }

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
	if len(ms) > 0 && newest > ms[len(ms)-1].Version {
		return errf("database schema version %d is newer than this build (%d)", newest, ms[len(ms)-1].Version)
	}
	for _, m := range ms {
		if m.Version <= newest {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, m.Version)
			return err
		})
		if err != nil {
			return wrap(fmt.Sprintf("apply migration %s", m.Name), err)
		}
	}
	if rls {
		return enableRLS(ctx, conn.Conn())
	}
	return nil
}
