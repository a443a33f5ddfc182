package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist/postgres/pgtest"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestDatabaseUnavailable: a database that cannot be reached (nothing
// listens on its port, the connection broke under a statement, the server
// shuts down or takes no more connections) is ErrDatabaseUnavailable,
// which is an ErrUnavailable too, in fixed words; other failures are not.
// It needs no PostgreSQL server.
func TestDatabaseUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close() // now nothing listens there
	url := fmt.Sprintf("postgres://nobody:secret@127.0.0.1:%d/none?sslmode=disable&connect_timeout=5", port)
	_, err = Open(context.Background(), Options{URL: url})
	if !errors.Is(err, cerrors.ErrDatabaseUnavailable) || !errors.Is(err, cerrors.ErrUnavailable) {
		t.Fatalf("open on a closed port: %v, want ErrDatabaseUnavailable", err)
	}
	if got, want := err.Error(), "postgresql: connect: connection failed"; got != want {
		t.Fatalf("open on a closed port: %q, want %q", got, want)
	}
	for name, e := range map[string]error{
		"unexpected EOF":   fmt.Errorf("receive message: %w", io.ErrUnexpectedEOF),
		"conn closed":      pgconn.ErrConnClosed,
		"reset":            &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET},
		"broken pipe":      fmt.Errorf("write: %w", syscall.EPIPE),
		"admin shutdown":   &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"},
		"cannot connect":   &pgconn.PgError{Code: "57P03", Message: "the database system is starting up"},
		"too many clients": &pgconn.PgError{Code: "53300", Message: "sorry, too many clients already"},
	} {
		w := wrap("search", e)
		if !errors.Is(w, cerrors.ErrDatabaseUnavailable) || !errors.Is(w, cerrors.ErrUnavailable) {
			t.Errorf("%s: %v is not ErrDatabaseUnavailable", name, w)
		}
		if strings.Contains(w.Error(), e.Error()) {
			t.Errorf("%s: %q carries the driver's text", name, w.Error())
		}
	}
	for name, e := range map[string]error{
		"unique":    &pgconn.PgError{Code: "23505"},
		"timeout":   &pgconn.PgError{Code: "57014"},
		"disk full": &pgconn.PgError{Code: "53100"},
		"schema":    &pgconn.PgError{Code: "42P01"},
		"other":     errors.New("boom"),
	} {
		if w := wrap("search", e); errors.Is(w, cerrors.ErrDatabaseUnavailable) {
			t.Errorf("%s: %v is ErrDatabaseUnavailable", name, w)
		}
	}
}

// TestDatabaseNotAnswering: a server that accepts connections and never
// answers leaves the pool without a connection: after PoolTimeout the
// read fails with ErrDatabaseUnavailable, not a generic error.
func TestDatabaseNotAnswering(t *testing.T) {
	url, schema := pgtest.Schema(t)
	proxy, purl := pgtest.NewProxy(t, url)
	ctx := context.Background()
	st, err := Open(ctx, Options{URL: purl, Schema: schema, PoolMin: 1, PoolMax: 2,
		PoolTimeout: 300 * time.Millisecond, ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	t.Cleanup(proxy.Down) // first: connections being made end now
	if _, err := st.LastSeq(ctx); err != nil {
		t.Fatal(err)
	}
	proxy.Silence()
	saw := false
	for i := 0; i < 4 && !saw; i++ {
		_, err := st.LastSeq(ctx)
		if !errors.Is(err, cerrors.ErrDatabaseUnavailable) {
			t.Fatalf("read %d with the server silent: %v, want ErrDatabaseUnavailable", i, err)
		}
		saw = strings.HasPrefix(err.Error(), "postgresql: acquire connection: no free connection within POSTGRESQL_POOL_TIMEOUT_S")
	}
	if !saw {
		t.Fatal("no read ended at the pool timeout")
	}
}
