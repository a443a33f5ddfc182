package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/lab/loadtest"
	"github.com/contextd/contextd/server"
)

// LoadOptions configures `contextd bench --load`. The zero value of every
// field means its default.
type LoadOptions struct {
	Clients  int           // concurrent MCP clients, each its own principal (default 16)
	Duration time.Duration // how long they call (default 60 s)
	// Size entries are stored first by another principal (default 0):
	// a database of realistic size that no client may see a trace of.
	Size     int
	DataDir  string   // the corpus of the Size entries, as for Run
	Backends []string // SEARCH_BACKEND values, one load each (nil = in-process)
	// LookupEnv is the configuration's environment (default
	// os.LookupEnv); DB_PATH, SEARCH_BACKEND and the JWT settings are set
	// by the run.
	LookupEnv func(string) (string, bool)
	TempDir   string    // where the databases are built (default os.TempDir)
	Progress  io.Writer // progress lines (default discarded)
}

// LoadReport is the result of a load run.
type LoadReport struct {
	Date      string    `json:"date"`
	CPU       string    `json:"cpu"`
	GoVersion string    `json:"go_version"`
	Platform  string    `json:"platform"`
	Size      int       `json:"prefilled_entries"`
	Corpus    string    `json:"corpus,omitempty"`
	Runs      []LoadRun `json:"runs"`
}

// LoadRun is the load on one backend.
type LoadRun struct {
	Backend string `json:"backend"`
	loadtest.Result
}

// Failed says what went wrong in any run, or "".
func (r *LoadReport) Failed() string {
	for _, run := range r.Runs {
		if msg := run.Failed(); msg != "" {
			return run.Backend + ": " + msg
		}
	}
	return ""
}

// JSON writes the report as indented JSON.
func (r *LoadReport) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Markdown writes each backend's summary and per-tool table.
func (r *LoadReport) Markdown(w io.Writer) {
	fmt.Fprintf(w, "contextd bench --load: %s, %s, %s %s; streamable HTTP on loopback, one RS256 JWT principal per client", r.Date, r.CPU, r.GoVersion, r.Platform)
	if r.Size > 0 {
		fmt.Fprintf(w, "; %s entries (%s) stored first by another principal", num(float64(r.Size)), r.Corpus)
	}
	fmt.Fprintln(w)
	for _, run := range r.Runs {
		fmt.Fprintf(w, "\n### %s\n\n", run.Backend)
		run.Markdown(w)
	}
}

// jwtIssuer and jwtAudience are what the load's tokens and the server
// agree on.
const (
	jwtIssuer   = "https://contextd-bench.invalid"
	jwtAudience = "contextd"
)

// RunLoad starts a server per backend on a fresh database, on a loopback
// port with JWT authentication, and runs internal/loadtest against it.
// The error is for a load that could not run; what the load found is in
// the report (Failed).
func RunLoad(ctx context.Context, opt LoadOptions) (*LoadReport, error) {
	if opt.Size < 0 {
		return nil, fmt.Errorf("size must be at least 0, got %d", opt.Size)
	}
	if opt.Clients <= 0 {
		opt.Clients = 16
	}
	if opt.Duration <= 0 {
		opt.Duration = time.Minute
	}
	if opt.Backends == nil {
		opt.Backends = []string{contextd.BackendInProcess}
	}
	if opt.LookupEnv == nil {
		opt.LookupEnv = os.LookupEnv
	}
	if opt.Progress == nil {
		opt.Progress = io.Discard
	}
	rep := &LoadReport{Date: time.Now().UTC().Format("2006-01-02"), CPU: cpuName(), GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, Size: opt.Size}
	var corpus *Corpus
	if opt.Size > 0 {
		var err error
		if corpus, err = LoadCorpus(opt.DataDir, opt.Size); err != nil {
			return nil, err
		}
		rep.Corpus = corpus.Name
	}
	iss, err := loadtest.NewIssuer(jwtIssuer, jwtAudience)
	if err != nil {
		return nil, err
	}
	for _, b := range opt.Backends {
		if b != contextd.BackendInProcess && b != contextd.BackendNative {
			return nil, fmt.Errorf("unknown search backend %q (in-process or native)", b)
		}
		res, err := runLoad(ctx, opt, b, iss, corpus)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b, err)
		}
		rep.Runs = append(rep.Runs, LoadRun{Backend: b, Result: *res})
	}
	return rep, nil
}

// runLoad serves backend over HTTP and runs the load against it.
func runLoad(ctx context.Context, opt LoadOptions, backend string, iss *loadtest.Issuer, corpus *Corpus) (*loadtest.Result, error) {
	dir, err := os.MkdirTemp(opt.TempDir, "contextd-load-")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	key, err := iss.PublicPEM()
	if err != nil {
		return nil, err
	}
	cfg, err := serverConfig(opt.LookupEnv, dir, backend, map[string]string{
		"MCP_AUTH_PROVIDER": "jwt", "MCP_AUTH_JWT_PUBLIC_KEY": key, "MCP_AUTH_JWT_ALGORITHM": "RS256",
		"MCP_AUTH_JWT_ISSUER": jwtIssuer, "MCP_AUTH_JWT_AUDIENCE": jwtAudience,
	})
	if err != nil {
		return nil, err
	}
	eng, err := contextd.Open(ctx, cfg.Engine)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	defer eng.Close()
	srv, err := server.New(eng, cfg.Server)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	hs := &http.Server{Handler: srv.HTTPHandler(cfg.HTTP), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		<-served
	}()
	url := "http://" + ln.Addr().String()
	if corpus != nil {
		fmt.Fprintf(opt.Progress, "bench: %s: storing %d entries as another principal\n", backend, corpus.Len())
		if err := prefill(ctx, url, iss, corpus); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(opt.Progress, "bench: %s: %d clients for %s on %s\n", backend, opt.Clients, opt.Duration, url)
	return loadtest.Run(ctx, loadtest.Options{
		URL: url, Clients: opt.Clients, Duration: opt.Duration, Seed: 7,
		Token: func(i int) (string, error) {
			return iss.Token(fmt.Sprintf("load-%d", i), []string{fmt.Sprintf("group-%d", i%2)})
		},
	})
}

// prefill stores the corpus through store_context_batch as the principal
// "bench-owner", whose private entries no client may see.
func prefill(ctx context.Context, url string, iss *loadtest.Issuer, corpus *Corpus) error {
	token, err := iss.Token("bench-owner", nil)
	if err != nil {
		return err
	}
	c, err := loadtest.Dial(ctx, url, token)
	if err != nil {
		return fmt.Errorf("prefill: %w", err)
	}
	defer c.Close()
	for i := 0; i < corpus.Len(); i += batchSize {
		entries := make([]any, 0, batchSize)
		for j := i; j < min(i+batchSize, corpus.Len()); j++ {
			entries = append(entries, Entry(j, corpus.Text(j)))
		}
		m, toolErr, err := c.Call(ctx, "store_context_batch", loadtest.M{"entries": entries})
		if err == nil && toolErr != "" {
			err = errors.New(toolErr)
		}
		if err != nil {
			return fmt.Errorf("prefill: store_context_batch: %w", err)
		}
		if n, _ := m["succeeded"].(float64); int(n) != len(entries) {
			return fmt.Errorf("prefill: %v of %d entries stored", m["succeeded"], len(entries))
		}
	}
	return nil
}
