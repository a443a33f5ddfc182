// Package fakeapi owns the fake model servers the tests talk to (the
// providers' own tests, the server's and the command's),
// so that every provider's retries, timeouts, concurrency bounds and
// answer checks are exercised against one implementation of the plumbing:
// an httptest server that answers a script of replies and then a handler,
// records every request, counts the calls and the peak of concurrent ones,
// and can hold answers back. It also holds the fake embedding data the
// embedding tests share ([Texts], [Vector]) and [Parallel], which plays
// concurrent callers against a concurrency bound.
//
//	srv := fakeapi.New(t, fakeapi.Config{
//		Path:   "/api/embed",
//		Script: []fakeapi.Reply{{Status: 503}}, // the first call
//		Handler: func(r fakeapi.Request) fakeapi.Reply { // the calls after it
//			return fakeapi.Reply{Body: `{"embeddings":[[1,2]]}`}
//		},
//	})
//	e := &ollama.Embedder{BaseURL: srv.URL, Dimensions: 2, Client: httpjson.Client{Attempts: 2}}
//	_, err := e.Embed(ctx, []string{"x"}) // srv.Calls() == 2
package fakeapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Reply is one answer of the fake server.
type Reply struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Body is written as it is when a string or []byte, as JSON otherwise;
	// nil writes nothing.
	Body any
}

// Request is one request the fake server received.
type Request struct {
	// N numbers the calls from 1, in the order they arrived.
	N      int
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// JSON decodes the request body into v.
func (r Request) JSON(v any) error {
	if err := json.Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("request %d body: %w", r.N, err)
	}
	return nil
}

// Config says how the fake server answers.
type Config struct {
	// Path, when set, is the only route: a request that is not a POST to
	// Path is answered 404 (it is still counted and recorded).
	Path string
	// Script answers the first len(Script) calls, in order.
	Script []Reply
	// Handler answers the calls after the script. nil: the last reply of
	// the script repeats (an empty 200 without a script).
	Handler func(Request) Reply
	// Delay holds every answer back this long, or until the client gives
	// up (the body is read first, so the server notices it leaving).
	Delay time.Duration
}

// Server is a running fake server; it closes when the test ends.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:port.
	URL string

	cfg                 Config
	calls, active, peak atomic.Int32
	mu                  sync.Mutex
	reqs                []Request
}

// New starts a fake server answering as cfg says.
func New(t testing.TB, cfg Config) *Server {
	t.Helper()
	s := &Server{cfg: cfg}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Calls is the number of requests received so far.
func (s *Server) Calls() int { return int(s.calls.Load()) }

// Peak is the largest number of requests that were in progress at once.
func (s *Server) Peak() int { return int(s.peak.Load()) }

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	n := s.active.Add(1)
	defer s.active.Add(-1)
	for {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			break
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{N: int(s.calls.Add(1)), Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	if s.cfg.Path != "" && (r.Method != http.MethodPost || r.URL.Path != s.cfg.Path) {
		http.NotFound(w, r)
		return
	}
	if s.cfg.Delay > 0 {
		select {
		case <-time.After(s.cfg.Delay):
		case <-r.Context().Done():
			return
		}
	}
	write(w, s.reply(req))
}

// reply picks the answer to req: the script, then the handler, then the
// script's last reply again.
func (s *Server) reply(req Request) Reply {
	script := s.cfg.Script
	switch {
	case req.N <= len(script):
		return script[req.N-1]
	case s.cfg.Handler != nil:
		return s.cfg.Handler(req)
	case len(script) > 0:
		return script[len(script)-1]
	}
	return Reply{}
}

func write(w http.ResponseWriter, rep Reply) {
	var body []byte
	switch b := rep.Body.(type) {
	case nil:
	case string:
		body = []byte(b)
	case []byte:
		body = b
	default:
		var err error
		if body, err = json.Marshal(b); err != nil {
			http.Error(w, "fakeapi: encode reply: "+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Texts returns n texts "t0", "t1", ... whose fake vectors ([Vector]) tell
// them apart, so a test can check that vectors come back in text order.
func Texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "t" + strconv.Itoa(i)
	}
	return out
}

// Vector is the fake embedding of text "t<i>": dim values i, i+1, ...
// (i is 0 for any other text).
func Vector(text string, dim int) []float64 {
	i, _ := strconv.Atoi(strings.TrimPrefix(text, "t"))
	v := make([]float64, dim)
	for k := range v {
		v[k] = float64(i + k)
	}
	return v
}

// Parallel runs fn n times at once, as concurrent callers of one provider
// would, and returns the errors joined (nil when every run succeeded).
func Parallel(n int, fn func() error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
