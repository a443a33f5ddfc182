package sqlite

// Returning an idle pool's memory (ReleaseMemory).
//
// Every connection maps the database file (SQLITE_MMAP_SIZE, 256 MiB by
// default) and keeps a page cache (SQLITE_CACHE_SIZE, 64 MiB). Pages a
// query touched through the map stay in the process's resident set for as
// long as the map lives, once per connection that touched them, and the
// writer's page cache stays full after a load. Measured at 100,000 entries
// (contextd bench, in-process, 2026-12-03): 230 MiB of the database's
// file-backed pages resident after the searches, and about 60 MiB of
// SQLite's page caches in anonymous memory.
//
// ReleaseMemory hands both back without changing a setting: on each idle
// connection, PRAGMA shrink_memory frees the unused pages of its cache,
// and setting mmap_size to 0 and back unmaps the file (SQLite remaps it at
// the next read, lazily, so only the pages a query touches come back, as
// minor faults from the kernel's page cache, which keeps the file). The
// server runs it when it turns quiet after activity
// (internal/memrelease); the bench runs it before reading the memory.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// releaseWait bounds how long ReleaseMemory waits for the writer: a write
// in progress keeps its pages, and the next quiet moment releases them.
const releaseWait = 50 * time.Millisecond

// ReleaseMemory returns the page caches and the mapped pages of the
// connections idle now (see above). Connections in use are left alone.
// An in-memory database is left alone: its cache is the database.
func (s *Store) ReleaseMemory(ctx context.Context) error {
	if s.cfg.memory {
		return nil
	}
	var errs []error
	conns, err := s.idleReaders(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	defer func() { closeConns(conns) }()
	wctx, cancel := context.WithTimeout(ctx, releaseWait)
	defer cancel()
	if c, err := s.w.Conn(wctx); err == nil {
		conns = append(conns, c)
	} else if ctx.Err() != nil {
		errs = append(errs, ctx.Err())
	}
	for _, c := range conns {
		if err := s.releaseConn(ctx, c); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("release database memory: %w", err)
	}
	// In fixed words: a driver message never leaves the package.
	return fmt.Errorf("release database memory: %s", errorKind(errors.Join(errs...)))
}

// releaseConn empties c's page cache and unmaps its file.
func (s *Store) releaseConn(ctx context.Context, c *sql.Conn) error {
	stmts := []string{"PRAGMA shrink_memory"}
	if s.cfg.mmapSize > 0 {
		stmts = append(stmts, "PRAGMA mmap_size=0", "PRAGMA mmap_size="+strconv.FormatInt(s.cfg.mmapSize, 10))
	}
	for _, q := range stmts {
		rows, err := c.QueryContext(ctx, q) // mmap_size answers with a row
		if err != nil {
			return err
		}
		for rows.Next() {
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
	}
	return nil
}
