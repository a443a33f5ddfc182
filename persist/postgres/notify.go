package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// This file wakes the change-log followers of every process sharing the
// database. Each committed write sends its last seq with pg_notify on the
// schema's channel (Store.Write; PostgreSQL delivers it at commit, never
// for a rolled-back write). While a follower is registered (AfterCommit),
// the store holds one extra connection outside the pool that LISTENs on
// the channel and runs the registered function on every notification, as
// a local commit does. The notification only wakes: the follower then
// reads the change log after its watermark, so a notification lost while
// the listener reconnects costs latency, not correctness (after a
// reconnect the function runs once more, to catch up on anything missed),
// and searches catch up first anyway.

// notifyChannel is the LISTEN/NOTIFY channel of a schema's change log.
func notifyChannel(schema string) string { return "contextd_changes_" + schema }

// listenAppName tags the listener's session in pg_stat_activity.
const listenAppName = "contextd-listen"

// listener is the running LISTEN loop of a Store.
type listener struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// listenState guards the store's listener.
type listenState struct {
	mu sync.Mutex
	l  *listener
}

// startListener (re)starts the LISTEN loop calling fn, or stops it when fn
// is nil.
func (s *Store) startListener(fn func(ctx context.Context)) {
	s.listen.mu.Lock()
	defer s.listen.mu.Unlock()
	if l := s.listen.l; l != nil {
		l.cancel()
		<-l.done
		s.listen.l = nil
	}
	if fn == nil || s.connCfg == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &listener{cancel: cancel, done: make(chan struct{})}
	s.listen.l = l
	go func() {
		defer close(l.done)
		s.listenLoop(ctx, fn)
	}()
}

// listenLoop keeps a LISTEN connection open until ctx ends, reconnecting
// with a capped backoff (50 ms doubling to 5 s).
func (s *Store) listenLoop(ctx context.Context, fn func(ctx context.Context)) {
	backoff := 50 * time.Millisecond
	first := true
	for ctx.Err() == nil {
		conn, err := s.listenConn(ctx)
		if err != nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 50 * time.Millisecond
		if !first {
			// Commits may have happened while no one listened.
			fn(ctx)
		}
		first = false
		own := s.instance + ":"
		for {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				break
			}
			if !strings.HasPrefix(n.Payload, own) {
				fn(ctx)
			}
		}
		_ = conn.Close(context.Background())
	}
}

// listenConn opens the listener's connection and subscribes it.
func (s *Store) listenConn(ctx context.Context) (*pgx.Conn, error) {
	cc := s.connCfg.Copy()
	cc.RuntimeParams["application_name"] = listenAppName
	cc.Tracer = nil
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, `LISTEN `+quoteIdent(notifyChannel(s.cfg.Schema))); err != nil {
		_ = conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// newInstanceID returns a random tag for one Store's notifications.
func newInstanceID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}
