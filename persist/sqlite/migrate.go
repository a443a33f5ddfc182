package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
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
		return nil, fmt.Errorf("sqlite: list migrations: %w", err)
	}
	out := make([]migration, 0, len(names))
	seen := map[int64]string{}
	for _, n := range names {
		base := path.Base(n)
		num, _, ok := strings.Cut(base, "_")
		if !ok {
			return nil, fmt.Errorf("sqlite: migration %s: name is not NNNN_description.sql", base)
		}
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("sqlite: migration %s: bad version %q", base, num)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("sqlite: migrations %s and %s share version %d", prev, base, v)
		}
		seen[v] = base
		b, err := migrationFS.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("sqlite: read migration %s: %w", base, err)
		}
		out = append(out, migration{version: v, name: base, sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// migrate applies the embedded migrations that db has not seen yet, each in
// its own (immediate) transaction together with its schema_migrations row.
// It is idempotent and safe against a concurrent migrate of another handle:
// the version is re-checked inside the write transaction.
func migrate(ctx context.Context, db *sql.DB) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("sqlite: create schema_migrations: %w", err)
	}
	var newest sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&newest); err != nil {
		return fmt.Errorf("sqlite: read schema version: %w", err)
	}
	if len(ms) > 0 && newest.Valid && newest.Int64 > ms[len(ms)-1].version {
		return fmt.Errorf("sqlite: database schema version %d is newer than this build (%d)",
			newest.Int64, ms[len(ms)-1].version)
	}
	for _, m := range ms {
		if newest.Valid && m.version <= newest.Int64 {
			continue
		}
		if err := applyMigration(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, m migration) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin migration %s: %w", m.name, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&done); err != nil {
		return fmt.Errorf("sqlite: check migration %s: %w", m.name, err)
	}
	if done > 0 {
		return tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("sqlite: apply migration %s: %w", m.name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`,
		m.version, time.Now().UnixMicro()); err != nil {
		return fmt.Errorf("sqlite: record migration %s: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit migration %s: %w", m.name, err)
	}
	return nil
}
