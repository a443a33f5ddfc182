package postgres

import (
	"context"
	"errors"
	"hash/fnv"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store is a PostgreSQL database holding contextd's truth. Reads and
// writes share one pgxpool; writes serialize on a transaction-scoped
// advisory lock keyed by the schema, so change-log seqs are assigned in
// commit order without gaps across every process sharing the database.
type Store struct {
	reader
	pool *pgxpool.Pool
	pq   poolQ // every statement and transaction goes through it (pool.go)
	// stmtLife expires cached statements (nil when nothing is cached).
	stmtLife *stmtLifetime
	cfg      settings
	lockKey  int64 // advisory lock of writers (and, session-scoped, of migrations)
	metrics  metrics

	// afterCommit runs after each committed write (see AfterCommit).
	afterCommit atomic.Pointer[func(ctx context.Context)]
	// connCfg opens the LISTEN connection (notify.go), outside the pool.
	connCfg *pgx.ConnConfig
	listen  listenState
	// instance tags this Store's notifications, so its listener skips its
	// own commits (the writer already ran the hook for them).
	instance string
	// vec is what this Store last saw of the pgvector table (pgvector.go).
	vec atomic.Pointer[vecState]
	// vecForce makes VectorSearch use one strategy (tests); 0 chooses.
	vecForce int
	// vecExactMin replaces minExactScan when positive (tests).
	vecExactMin int64

	closeOnce sync.Once
}

// Open connects to the database of o.URL, creates o.Schema when missing
// and brings the schema up to date.
func Open(ctx context.Context, o Options) (*Store, error) {
	cfg, err := resolve(o)
	if err != nil {
		return nil, err
	}
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		// The parser's message may quote the connection string.
		return nil, errf("option URL: not a valid connection string")
	}
	s := &Store{cfg: cfg, lockKey: lockKey(cfg.Schema)}
	s.configure(pc)
	s.connCfg = pc.ConnConfig.Copy()
	s.instance = newInstanceID()
	if s.pool, err = pgxpool.NewWithConfig(ctx, pc); err != nil {
		return nil, wrap("connect", err)
	}
	mctx, cancel := context.WithTimeout(ctx, cfg.MigrationTimeout)
	defer cancel()
	if err := s.pool.Ping(mctx); err != nil {
		s.pool.Close()
		return nil, wrap("connect", err)
	}
	if err := migrate(mctx, s.pool, cfg.Schema, s.lockKey, cfg.RLS); err != nil {
		s.pool.Close()
		return nil, err
	}
	s.pq = poolQ{pool: s.pool, wait: cfg.PoolTimeout}
	if cfg.stmtCache > 0 && cfg.MaxCacheableStatementSize > 0 {
		s.pq.maxStmt = cfg.MaxCacheableStatementSize
	}
	s.reader = newReader(s.pq, s.pq, cfg.Schema)
	vs, err := loadVecState(ctx, s.pq)
	if err != nil {
		s.pool.Close()
		return nil, err
	}
	s.vec.Store(&vs)
	return s, nil
}

// configure applies the settings to the pool configuration: pool bounds,
// lifetimes, the schema as search_path, statement_timeout, keepalives,
// the statement cache and the metrics tracer.
func (s *Store) configure(pc *pgxpool.Config) {
	c := s.cfg
	pc.MinConns = int32(c.PoolMin)
	pc.MaxConns = int32(c.PoolMax)
	if sessionPooler(pc.ConnConfig.Host, pc.ConnConfig.Port) {
		pc.MaxConns = int32(min(c.PoolMax, c.SessionPoolerMaxClients))
		pc.MinConns = min(pc.MinConns, pc.MaxConns)
	}
	pc.MaxConnIdleTime = c.MaxInactiveLifetime
	if c.MaxInactiveLifetime == 0 {
		pc.MaxConnIdleTime = 0
	}
	cc := pc.ConnConfig
	cc.ConnectTimeout = c.ConnectTimeout
	if cc.RuntimeParams == nil {
		cc.RuntimeParams = map[string]string{}
	}
	cc.RuntimeParams["search_path"] = quoteIdent(c.Schema)
	// The store's own reads are unrestricted; reads for a caller clear
	// this in their transaction (rls.go).
	cc.RuntimeParams[settingUnrestricted] = "on"
	cc.RuntimeParams["statement_timeout"] = strconv.FormatInt(c.CommandTimeout.Milliseconds(), 10)
	if cc.RuntimeParams["application_name"] == "" {
		cc.RuntimeParams["application_name"] = "contextd"
	}
	if c.stmtCache == 0 {
		// Nothing is prepared: one round trip describes, one executes.
		cc.DefaultQueryExecMode = pgx.QueryExecModeExec
	} else {
		cc.StatementCacheCapacity = c.stmtCache
		if c.MaxCachedStatementLifetime > 0 {
			l := &stmtLifetime{life: c.MaxCachedStatementLifetime, now: time.Now}
			pc.PrepareConn = l.prepare
			s.stmtLife = l
		}
	}
	d := &net.Dialer{KeepAliveConfig: net.KeepAliveConfig{Enable: true,
		Idle: c.KeepalivesIdle, Interval: c.KeepalivesInterval, Count: c.KeepalivesCount}}
	cc.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			s.metrics.OpenFailed.Add(1)
			s.metrics.Failed.Add(1)
			s.metrics.ConsecutiveFailed.Add(1)
			s.metrics.SetLastError(errorKind(err))
		}
		return conn, err
	}
	cc.Tracer = &s.metrics
	pc.AfterConnect = func(context.Context, *pgx.Conn) error {
		s.metrics.Opened.Add(1)
		return nil
	}
	pc.BeforeClose = func(conn *pgx.Conn) {
		s.metrics.perConn.Delete(conn)
		if s.stmtLife != nil {
			s.stmtLife.reset.Delete(conn)
		}
	}
	if c.MaxQueries > 0 {
		maxQ := int64(c.MaxQueries)
		pc.AfterRelease = func(conn *pgx.Conn) bool {
			// Recycle a connection after MaxQueries statements.
			return s.metrics.connQueries(conn) < maxQ
		}
	}
}

// lockKey is the advisory-lock key of a schema's writers: stores in other
// schemas of one database (tests, tenants) do not serialize each other.
func lockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("contextd.write." + schema))
	return int64(h.Sum64())
}

// Backend names the dialect.
func (s *Store) Backend() string { return Backend }

// Close closes every connection. It is safe to call more than once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.startListener(nil)
		if s.pool != nil {
			s.pool.Close()
		}
	})
	return nil
}

// Write runs fn in one write transaction, serialized with every other
// writer of the schema (in any process) by a transaction-scoped advisory
// lock, committing when fn returns nil and rolling back otherwise (also
// when fn panics). fn's error is returned as is. Reads on the Store itself
// run on other connections and see the state before the transaction.
func (s *Store) Write(ctx context.Context, fn func(tx persist.Tx) error) (err error) {
	if fn == nil {
		return errf("write: nil function")
	}
	s.metrics.WriteQueue.Add(1)
	ptx, err := s.pq.BeginTx(ctx, pgx.TxOptions{})
	if err == nil {
		_, err = ptx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, s.lockKey)
		if err != nil {
			_ = ptx.Rollback(context.Background())
		}
	}
	s.metrics.WriteQueue.Add(-1)
	if err != nil {
		return wrap("begin write", err)
	}
	p := &pipe{tx: ptx}
	t := &tx{reader: newReader(p, nil, s.cfg.Schema), tx: p}
	t.Writes = sqlstore.Writes{D: Dialect, W: t}
	committed := false
	defer func() {
		if !committed {
			// A fresh context: a canceled ctx must not leave the
			// transaction (and the write lock) open on a pooled connection.
			_ = ptx.Rollback(context.Background())
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	if t.lastSeq > 0 {
		// Delivered at commit, to every replica listening (notify.go);
		// sent with the statements still queued.
		if _, err := p.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel(s.cfg.Schema), s.instance+":"+strconv.FormatInt(t.lastSeq, 10)); err != nil {
			return wrap("notify", err)
		}
	}
	if _, err := p.flush(ctx); err != nil {
		return err
	}
	if err := ptx.Commit(ctx); err != nil {
		return wrap("commit write", err)
	}
	committed = true
	if fn := s.afterCommit.Load(); fn != nil {
		(*fn)(ctx)
	}
	return nil
}

// AfterCommit registers fn to run after every committed write of this
// Store, in the writer's goroutine, and after every write another process
// commits to the schema, in the listener's goroutine (notify.go); nil
// unregisters and stops the listener.
func (s *Store) AfterCommit(fn func(ctx context.Context)) {
	if fn == nil {
		s.afterCommit.Store(nil)
	} else {
		s.afterCommit.Store(&fn)
	}
	s.startListener(fn)
}

// LastSeq returns the newest committed change-log seq (0 when empty).
func (s *Store) LastSeq(ctx context.Context) (int64, error) {
	var seq int64
	if err := s.q.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM change_log`).Scan(&seq); err != nil {
		return 0, wrap("read change-log head", err)
	}
	return seq, nil
}

// Changes returns change-log rows with seq > after in seq order; limit <= 0
// means all of them. Rows of uncommitted transactions are invisible under
// READ COMMITTED, and the write lock makes commit order seq order, so a
// follower never skips a row that commits later.
func (s *Store) Changes(ctx context.Context, after int64, limit int) ([]persist.Change, error) {
	var lim any
	if limit > 0 {
		lim = limit
	}
	rows, err := s.q.Query(ctx, `SELECT seq, entry_id, op FROM change_log WHERE seq > $1 ORDER BY seq LIMIT $2`, after, lim)
	if err != nil {
		return nil, wrap("read changes", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (persist.Change, error) {
		var c persist.Change
		err := r.Scan(&c.Seq, &c.EntryID, &c.Op)
		return c, err
	})
	if err != nil {
		return nil, wrap("read changes", err)
	}
	return out, nil
}

// Native reports tsvector full-text search and pgvector vector search.
// Both are always offered: full text needs no extension, and a server
// without pgvector makes EnsureVectorTable (the start-up step of
// SEARCH_BACKEND=native with semantic search) fail with an error naming
// pgvector and what to do, while native full text keeps working.
func (s *Store) Native() persist.Native { return persist.Native{FullText: s, Vectors: s} }

// PoolStats reports the pool and the operations run on it.
func (s *Store) PoolStats() persist.PoolStats {
	var out persist.PoolStats
	if s.pool != nil {
		st := s.pool.Stat()
		out.PoolSize = int(st.MaxConns())
		out.OpenConnections = int(st.TotalConns())
		out.InUse = int(st.AcquiredConns())
		out.Idle = int(st.IdleConns())
		out.WaitCount = st.EmptyAcquireCount()
		out.WaitDuration = st.EmptyAcquireWaitTime()
	}
	s.metrics.Fill(&out)
	return out
}

// metrics counts connections and statements for PoolStats; it is the
// pgx QueryTracer of every connection.
type metrics struct {
	sqlstore.Counters
	perConn sync.Map // *pgx.Conn -> *atomic.Int64 statements run
}

// TraceQueryStart counts the statement on its connection.
func (m *metrics) TraceQueryStart(ctx context.Context, conn *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	v, _ := m.perConn.LoadOrStore(conn, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
	return ctx
}

// TraceQueryEnd records the outcome. A cancellation by the caller is not a
// failure of the database.
func (m *metrics) TraceQueryEnd(_ context.Context, _ *pgx.Conn, d pgx.TraceQueryEndData) {
	m.Record(d.Err, errors.Is(d.Err, pgx.ErrNoRows), errorKind)
}

// connQueries returns how many statements conn ran; a connection about to
// be destroyed is forgotten.
func (m *metrics) connQueries(conn *pgx.Conn) int64 {
	v, ok := m.perConn.Load(conn)
	if !ok {
		return 0
	}
	n := v.(*atomic.Int64).Load()
	return n
}

var _ pgx.QueryTracer = (*metrics)(nil)
