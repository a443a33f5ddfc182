package config

import (
	"cmp"
	"math"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/quant"
)

// Planned holds settings kept apart from the engine's configuration. Two
// groups serve built features: Compression (the engine's compression
// settings are read with it) and PostgreSQL (turned into the store's
// connection string and options). The rest belong to features of the
// reference this build does not carry yet (Ollama model pulls,
// metadata-index reconciliation, the write queue, retries, the circuit
// breaker, the ONNX reranker, the Azure, Hugging Face and Voyage
// embedders, LangSmith tracing). They are validated like every other
// variable, so that a deployment file means today what it will mean once
// they are built: a bad value exits 78 naming the variable now, not
// later. docs/configuration.md marks each of them "not yet built".
type Planned struct {
	Compression Compression
	// OllamaAutoPull (OLLAMA_AUTO_PULL, default true) and OllamaPullTimeout
	// (OLLAMA_PULL_TIMEOUT_S, 30-3600, default 900): pulling a missing
	// Ollama model at start-up.
	OllamaAutoPull    bool
	OllamaPullTimeout time.Duration
	// MetadataIndexSyncMode is METADATA_INDEX_SYNC_MODE: strict, auto,
	// warn or additive (default), how start-up reconciles the metadata
	// indexes with METADATA_INDEXED_FIELDS.
	MetadataIndexSyncMode string
	Pool                  PoolTimers
	Retry                 Retry
	Breaker               Breaker
	Reranking             RerankingRuntime
	Providers             ProviderKeys
	LangSmith             LangSmith
	PostgreSQL            PostgreSQL
}

// Compression is the TurboQuant embedding compression (C.14).
type Compression struct {
	Enabled bool // ENABLE_EMBEDDING_COMPRESSION, default true
	// Explicit reports that ENABLE_EMBEDDING_COMPRESSION was set to true.
	Explicit      bool
	Provider      string // COMPRESSION_PROVIDER: turboquant
	Bits          int    // COMPRESSION_BITS: 2-4, default 4
	Variant       string // COMPRESSION_VARIANT: mse (default, it ranks better: README, Compression) or ip
	KeepFloat     bool   // COMPRESSION_KEEP_FLOAT: float32 vectors beside the codes (default true)
	Seed          uint32 // COMPRESSION_SEED: 0-4294967295, default 0
	MaxConcurrent int    // COMPRESSION_MAX_CONCURRENT: 1-32, default min(CPUs, 4)
	GraphInt8MB   int    // COMPRESSION_GRAPH_INT8_MB: 0-1048576, default 128; 0 never
	Dim           int    // EMBEDDING_DIM as read, the dimension compressed
}

// PoolTimers are the queue timers of the reference's connection manager
// (a write queue). POOL_IDLE_TIMEOUT_S and POOL_HEALTH_CHECK_INTERVAL_S
// are applied to the SQLite pool (readSQLite).
type PoolTimers struct {
	QueueTimeout        time.Duration // QUEUE_TIMEOUT_S, default 1
	QueueTimeoutTest    time.Duration // QUEUE_TIMEOUT_TEST_S, default 0.1
	ShutdownTimeoutTest time.Duration // SHUTDOWN_TIMEOUT_TEST_S, default 5
}

// Retry is the database retry policy (RETRY_*).
type Retry struct {
	MaxRetries    int           // RETRY_MAX_RETRIES: 0-100, default 5
	BaseDelay     time.Duration // RETRY_BASE_DELAY_S, default 0.5
	MaxDelay      time.Duration // RETRY_MAX_DELAY_S, default 10, at least the base delay
	Jitter        bool          // RETRY_JITTER, default true
	BackoffFactor float64       // RETRY_BACKOFF_FACTOR: 1-10, default 2
}

// Breaker is the database circuit breaker (CIRCUIT_BREAKER_*).
type Breaker struct {
	FailureThreshold int           // CIRCUIT_BREAKER_FAILURE_THRESHOLD: at least 1, default 10
	RecoveryTimeout  time.Duration // CIRCUIT_BREAKER_RECOVERY_TIMEOUT_S, default 30
	HalfOpenMaxCalls int           // CIRCUIT_BREAKER_HALF_OPEN_MAX_CALLS: at least 1, default 5
}

// RerankingRuntime are the settings of the reference's ONNX (flashrank)
// reranker runtime; the built-in reranker needs none of them.
type RerankingRuntime struct {
	CacheDir       string // RERANKING_CACHE_DIR: a directory (unset: the system cache)
	IntraOpThreads int    // RERANKING_INTRA_OP_THREADS: 0 (runtime default) to 1024
	CPUMemArena    bool   // RERANKING_CPU_MEM_ARENA, default false
}

// ProviderKeys are the settings of the embedding providers this build
// refuses in EMBEDDING_PROVIDER (azure, huggingface, voyage).
type ProviderKeys struct {
	AzureAPIKey      string // AZURE_OPENAI_API_KEY
	AzureEndpoint    string // AZURE_OPENAI_ENDPOINT: an http(s) URL
	AzureAPIVersion  string // AZURE_OPENAI_API_VERSION, default 2024-02-01
	AzureDeployment  string // AZURE_OPENAI_EMBEDDING_DEPLOYMENT_NAME
	HuggingFaceToken string // HUGGINGFACEHUB_API_TOKEN
	VoyageAPIKey     string // VOYAGE_API_KEY
	VoyageTruncation bool   // VOYAGE_TRUNCATION, default false
	VoyageBatchSize  int    // VOYAGE_BATCH_SIZE: 1-128, default 7
}

// LangSmith is the tracing of the reference (LANGSMITH_*).
type LangSmith struct {
	Tracing  bool   // LANGSMITH_TRACING, default false
	APIKey   string // LANGSMITH_API_KEY
	Endpoint string // LANGSMITH_ENDPOINT: an http(s) URL
	Project  string // LANGSMITH_PROJECT, default mcp-context-server
}

// PostgreSQL is the PostgreSQL backend (STORAGE_BACKEND=postgresql).
type PostgreSQL struct {
	ConnectionString         string // POSTGRESQL_CONNECTION_STRING: postgres:// or postgresql:// URL; overrides the parts
	Host                     string // POSTGRESQL_HOST, default localhost
	Port                     int    // POSTGRESQL_PORT: 1-65535, default 5432
	User, Password, Database string // POSTGRESQL_USER, _PASSWORD, _DATABASE
	SSLMode                  string // POSTGRESQL_SSL_MODE: disable, allow, prefer (default), require, verify-ca, verify-full
	Schema                   string // POSTGRESQL_SCHEMA: an identifier, default public
	RLS                      bool   // ENABLE_POSTGRESQL_RLS, default false
	PoolMin, PoolMax         int    // POSTGRESQL_POOL_MIN (0-1000, default 2), _POOL_MAX (1-1000, default 20, at least the minimum)
	SessionPoolerMaxClients  int    // POSTGRESQL_SESSION_POOLER_MAX_CLIENTS: 1-1000, default 15
	// The rest are POSTGRESQL_<NAME>[_S] with the reference defaults
	// (readPostgreSQL lists them with their ranges).
	PoolTimeout                time.Duration
	ConnectTimeout             time.Duration // below PoolTimeout
	CommandTimeout             time.Duration
	MigrationTimeout           time.Duration
	MaxInactiveLifetime        time.Duration
	MaxQueries                 int
	KeepalivesIdle             time.Duration
	KeepalivesInterval         time.Duration
	KeepalivesCount            int
	StatementCacheSize         int
	MaxCachedStatementLifetime time.Duration
	MaxCacheableStatementSize  int
}

var schemaPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]{0,62}$`)

// readPlanned reads the variables of the features not built yet into
// c.Planned. It runs after readEmbedding, whose EMBEDDING_DIM the
// compression constraint checks.
func readPlanned(r *envReader, c *Config) {
	p := &c.Planned
	readCompression(r, &p.Compression, &c.Engine.Embedding.Compression, c.Engine.FTS.Backend == contextd.BackendNative)
	p.OllamaAutoPull = r.boolean("OLLAMA_AUTO_PULL", true)
	p.OllamaPullTimeout = r.secondsBetween("OLLAMA_PULL_TIMEOUT_S", 900, 30, 3600)
	p.MetadataIndexSyncMode = r.choice("METADATA_INDEX_SYNC_MODE", "additive", strings.ToLower, "strict", "auto", "warn", "additive")

	p.Pool = PoolTimers{
		QueueTimeout:        r.seconds("QUEUE_TIMEOUT_S", 1, 3600),
		QueueTimeoutTest:    r.seconds("QUEUE_TIMEOUT_TEST_S", 0.1, 3600),
		ShutdownTimeoutTest: r.seconds("SHUTDOWN_TIMEOUT_TEST_S", 5, 3600),
	}
	p.Retry = Retry{
		MaxRetries:    r.intRange("RETRY_MAX_RETRIES", 5, 0, 100),
		BaseDelay:     r.seconds("RETRY_BASE_DELAY_S", 0.5, 3600),
		MaxDelay:      r.seconds("RETRY_MAX_DELAY_S", 10, 3600),
		Jitter:        r.boolean("RETRY_JITTER", true),
		BackoffFactor: r.floatBetween("RETRY_BACKOFF_FACTOR", 2, 1, 10),
	}
	if p.Retry.MaxDelay < p.Retry.BaseDelay {
		v, _ := r.lookup("RETRY_MAX_DELAY_S")
		r.fail("RETRY_MAX_DELAY_S", v, "must be at least RETRY_BASE_DELAY_S ("+strconv.FormatFloat(p.Retry.BaseDelay.Seconds(), 'f', -1, 64)+")")
	}
	p.Breaker = Breaker{
		FailureThreshold: r.intRange("CIRCUIT_BREAKER_FAILURE_THRESHOLD", 10, 1, math.MaxInt32),
		RecoveryTimeout:  r.seconds("CIRCUIT_BREAKER_RECOVERY_TIMEOUT_S", 30, 86400),
		HalfOpenMaxCalls: r.intRange("CIRCUIT_BREAKER_HALF_OPEN_MAX_CALLS", 5, 1, math.MaxInt32),
	}
	p.Reranking = RerankingRuntime{
		CacheDir:       r.directory("RERANKING_CACHE_DIR"),
		IntraOpThreads: r.intRange("RERANKING_INTRA_OP_THREADS", 0, 0, 1024),
		CPUMemArena:    r.boolean("RERANKING_CPU_MEM_ARENA", false),
	}
	p.Providers = ProviderKeys{
		AzureAPIKey:      r.text("AZURE_OPENAI_API_KEY"),
		AzureEndpoint:    r.httpURL("AZURE_OPENAI_ENDPOINT", ""),
		AzureAPIVersion:  r.textOr("AZURE_OPENAI_API_VERSION", "2024-02-01"),
		AzureDeployment:  r.text("AZURE_OPENAI_EMBEDDING_DEPLOYMENT_NAME"),
		HuggingFaceToken: r.text("HUGGINGFACEHUB_API_TOKEN"),
		VoyageAPIKey:     r.text("VOYAGE_API_KEY"),
		VoyageTruncation: r.boolean("VOYAGE_TRUNCATION", false),
		VoyageBatchSize:  r.intRange("VOYAGE_BATCH_SIZE", 7, 1, 128),
	}
	// OLLAMA_HOST is used by the Ollama providers, which read it only when
	// chosen; it is checked here whatever the provider.
	r.checkOllamaHost()
	p.LangSmith = LangSmith{
		Tracing:  r.boolean("LANGSMITH_TRACING", false),
		APIKey:   r.text("LANGSMITH_API_KEY"),
		Endpoint: r.httpURL("LANGSMITH_ENDPOINT", "https://api.smith.langchain.com"),
		Project:  r.textOr("LANGSMITH_PROJECT", "mcp-context-server"),
	}
	readPostgreSQL(r, &p.PostgreSQL)
}

// readCompression reads C.14's variables into k and the engine's
// quant.Settings. The reference's constraint d·b_eff % 8 == 0 (exit 78)
// is lifted: package quant pads every code row to a whole byte, so the
// 100-d built-in model starts at every bits and variant.
// COMPRESSION_KEEP_FLOAT defaults to true: float32 vectors stay beside the
// codes and re-rank them. Codes alone measured recall@10 0.83-0.90 against
// 0.98 kept, and Cranfield semantic nDCG@10 0.2256 against 0.2393 (issue
// 12's floor is 0.23), so the lossy form is opt-in. With
// SEARCH_BACKEND=native, whose sqlite-vec table searches the float32
// vectors, COMPRESSION_KEEP_FLOAT=false is refused.
func readCompression(r *envReader, k *Compression, s *quant.Settings, native bool) {
	raw, set := r.lookup("ENABLE_EMBEDDING_COMPRESSION")
	k.Enabled = r.boolean("ENABLE_EMBEDDING_COMPRESSION", true)
	on, valid := request.ParseBoolWord(raw)
	k.Explicit = set && valid && on
	k.Provider = r.choice("COMPRESSION_PROVIDER", "turboquant", strings.ToLower, "turboquant")
	k.Bits = r.intRange("COMPRESSION_BITS", 4, 2, 4)
	k.Variant = r.choice("COMPRESSION_VARIANT", "mse", strings.ToLower, "ip", "mse")
	k.KeepFloat = r.boolean("COMPRESSION_KEEP_FLOAT", true)
	if native && !k.KeepFloat && k.Enabled {
		r.fail("COMPRESSION_KEEP_FLOAT", "false", "must be true with SEARCH_BACKEND=native, whose vector table searches the float32 vectors")
	}
	if v, ok := r.lookup("COMPRESSION_SEED"); ok {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
		if err != nil {
			r.fail("COMPRESSION_SEED", v, "must be an integer from 0 to 4294967295")
		} else {
			k.Seed = uint32(n)
		}
	}
	k.MaxConcurrent = r.intRange("COMPRESSION_MAX_CONCURRENT", min(runtime.NumCPU(), 4), 1, 32)
	k.GraphInt8MB = r.intRange("COMPRESSION_GRAPH_INT8_MB", quant.DefaultGraphInt8MiB, 0, 1<<20)
	variant, _ := quant.ParseVariant(k.Variant) // one of the two, checked above
	*s = quant.Settings{Disabled: !k.Enabled, Bits: k.Bits, Variant: variant, Seed: k.Seed, CodesOnly: !k.KeepFloat, MaxConcurrent: k.MaxConcurrent,
		GraphInt8MiB: cmp.Or(k.GraphInt8MB, -1)} // 0 in the variable means never
}

// readPostgreSQL reads POSTGRESQL_* and ENABLE_POSTGRESQL_RLS.
func readPostgreSQL(r *envReader, g *PostgreSQL) {
	if v, ok := r.lookup("POSTGRESQL_CONNECTION_STRING"); ok && strings.TrimSpace(v) != "" {
		u, err := url.Parse(strings.TrimSpace(v))
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			// The value may hold a password: it is not echoed back.
			r.fail("POSTGRESQL_CONNECTION_STRING", "(hidden)", "must be a postgresql:// or postgres:// URL")
		} else {
			g.ConnectionString = strings.TrimSpace(v)
		}
	}
	g.Host = r.textOr("POSTGRESQL_HOST", "localhost")
	g.Port = r.intRange("POSTGRESQL_PORT", 5432, 1, 65535)
	g.User = r.textOr("POSTGRESQL_USER", "postgres")
	g.Password, _ = r.lookup("POSTGRESQL_PASSWORD")
	if g.Password == "" {
		g.Password = "postgres"
	}
	g.Database = r.textOr("POSTGRESQL_DATABASE", "mcp_context")
	g.SSLMode = r.choice("POSTGRESQL_SSL_MODE", "prefer", strings.ToLower, "disable", "allow", "prefer", "require", "verify-ca", "verify-full")
	g.Schema = r.textOr("POSTGRESQL_SCHEMA", "public")
	if !schemaPattern.MatchString(g.Schema) {
		v, _ := r.lookup("POSTGRESQL_SCHEMA")
		r.fail("POSTGRESQL_SCHEMA", v, "must be an identifier of 1 to 63 characters: a letter or _ then letters, digits, _ or $")
		g.Schema = "public"
	}
	g.RLS = r.boolean("ENABLE_POSTGRESQL_RLS", false)
	g.PoolMin = r.intRange("POSTGRESQL_POOL_MIN", 2, 0, 1000)
	g.PoolMax = r.intRange("POSTGRESQL_POOL_MAX", 20, 1, 1000)
	if g.PoolMax < g.PoolMin {
		v, _ := r.lookup("POSTGRESQL_POOL_MAX")
		r.fail("POSTGRESQL_POOL_MAX", v, "must be at least POSTGRESQL_POOL_MIN ("+strconv.Itoa(g.PoolMin)+")")
	}
	g.SessionPoolerMaxClients = r.intRange("POSTGRESQL_SESSION_POOLER_MAX_CLIENTS", 15, 1, 1000)
	g.PoolTimeout = r.seconds("POSTGRESQL_POOL_TIMEOUT_S", 120, 86400)
	g.ConnectTimeout = r.seconds("POSTGRESQL_CONNECT_TIMEOUT_S", 60, 86400)
	if g.ConnectTimeout >= g.PoolTimeout {
		v, _ := r.lookup("POSTGRESQL_CONNECT_TIMEOUT_S")
		r.fail("POSTGRESQL_CONNECT_TIMEOUT_S", v, "must be less than POSTGRESQL_POOL_TIMEOUT_S ("+strconv.FormatFloat(g.PoolTimeout.Seconds(), 'f', -1, 64)+")")
	}
	g.CommandTimeout = r.seconds("POSTGRESQL_COMMAND_TIMEOUT_S", 60, 86400)
	g.MigrationTimeout = r.seconds("POSTGRESQL_MIGRATION_TIMEOUT_S", 300, 86400)
	g.MaxInactiveLifetime = r.seconds0("POSTGRESQL_MAX_INACTIVE_LIFETIME_S", 300, 86400)
	g.MaxQueries = r.intRange("POSTGRESQL_MAX_QUERIES", 10000, 0, math.MaxInt32)
	g.KeepalivesIdle = r.seconds("POSTGRESQL_TCP_KEEPALIVES_IDLE_S", 15, 86400)
	g.KeepalivesInterval = r.seconds("POSTGRESQL_TCP_KEEPALIVES_INTERVAL_S", 5, 86400)
	g.KeepalivesCount = r.intRange("POSTGRESQL_TCP_KEEPALIVES_COUNT", 3, 1, 1000)
	g.StatementCacheSize = r.intRange("POSTGRESQL_STATEMENT_CACHE_SIZE", 100, 0, math.MaxInt32)
	g.MaxCachedStatementLifetime = r.seconds0("POSTGRESQL_MAX_CACHED_STATEMENT_LIFETIME_S", 300, 86400)
	g.MaxCacheableStatementSize = r.intRange("POSTGRESQL_MAX_CACHEABLE_STATEMENT_SIZE", 15360, 0, math.MaxInt32)
}

// textOr reads a free string, def when unset or blank.
func (r *envReader) textOr(name, def string) string {
	if v := r.text(name); v != "" {
		return v
	}
	return def
}

// httpURL reads an http(s) URL with a host; def when unset or blank.
func (r *envReader) httpURL(name, def string) string {
	v, ok := r.lookup(name)
	if !ok || strings.TrimSpace(v) == "" {
		return def
	}
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.fail(name, v, "must be an http:// or https:// URL with a host")
		return def
	}
	return strings.TrimSpace(v)
}

// checkOllamaHost validates OLLAMA_HOST: a URL or host[:port] (read as
// http); unset or blank means http://localhost:11434.
func (r *envReader) checkOllamaHost() {
	v := r.text("OLLAMA_HOST")
	if v == "" {
		return
	}
	h := v
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	u, err := url.Parse(h)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		raw, _ := r.lookup("OLLAMA_HOST")
		r.fail("OLLAMA_HOST", raw, "must be an http(s) URL or host[:port] of an Ollama server")
	}
}

// directory reads a directory path: one that exists must be a directory.
func (r *envReader) directory(name string) string {
	v := r.text(name)
	if v == "" {
		return ""
	}
	p := expandHome(v)
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		raw, _ := r.lookup(name)
		r.fail(name, raw, p+" is not a directory")
		return ""
	}
	return p
}
