package loadtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// Options configures a load. The zero value of every field but URL means
// its default.
type Options struct {
	URL      string        // the server, e.g. http://127.0.0.1:8000 (required)
	Clients  int           // concurrent clients (default 8)
	Duration time.Duration // how long the clients call (default 10 s)
	// Token is client i's bearer token; each client must be its own
	// principal for the isolation check. nil sends no token, which only
	// one client may do (ErrSharedPrincipal).
	Token func(i int) (string, error)
	Seed  uint64 // of each client's choices (client i uses Seed+i)
}

var (
	// ErrNoURL: Options.URL is empty.
	ErrNoURL = errors.New("load: the server URL is required")
	// ErrSharedPrincipal: several clients without tokens would all be the
	// default principal, and the isolation check would count each
	// other's entries as leaks.
	ErrSharedPrincipal = errors.New("load: more than one client needs Options.Token (one principal per client)")
)

// Run runs the load and verifies it. The error is for a load that could
// not run (no URL, a token or connection failure); what the load found is
// in the Result (Failed).
func Run(ctx context.Context, opt Options) (*Result, error) {
	if opt.URL == "" {
		return nil, ErrNoURL
	}
	if opt.Clients <= 0 {
		opt.Clients = 8
	}
	if opt.Token == nil && opt.Clients > 1 {
		return nil, ErrSharedPrincipal
	}
	if opt.Duration <= 0 {
		opt.Duration = 10 * time.Second
	}
	clients := make([]*worker, opt.Clients)
	for i := range clients {
		token := ""
		if opt.Token != nil {
			var err error
			if token, err = opt.Token(i); err != nil {
				return nil, fmt.Errorf("load: client %d token: %w", i, err)
			}
		}
		c, err := Dial(ctx, opt.URL, token)
		if err != nil {
			closeAll(clients)
			return nil, fmt.Errorf("load: client %d: %w", i, err)
		}
		clients[i] = newWorker(i, c, opt.Seed+uint64(i))
	}
	defer closeAll(clients)
	var wg sync.WaitGroup
	began := time.Now()
	deadline := began.Add(opt.Duration)
	for _, w := range clients {
		wg.Add(1)
		go func() { defer wg.Done(); w.run(ctx, deadline) }()
	}
	wg.Wait()
	elapsed := time.Since(began)
	// Verify after every client stopped: nothing written afterwards can
	// mask a lost write.
	for _, w := range clients {
		wg.Add(1)
		go func() { defer wg.Done(); w.verify(ctx) }()
	}
	wg.Wait()
	return summarize(clients, elapsed), nil
}

func closeAll(ws []*worker) {
	for _, w := range ws {
		if w != nil {
			_ = w.c.Close()
		}
	}
}

// worker is one client's state: what it wrote, and what it measured.
type worker struct {
	n                               int
	c                               *Client
	rng                             *rand.Rand
	texts                           map[string]string // live id -> the last text written
	ids                             []string          // live ids, for picking
	gone                            []string          // deleted ids
	isGone                          map[string]bool
	lat                             map[string][]time.Duration
	fails                           map[string]int // tool -> errors
	samp                            []string       // the first error messages
	lost, foreign, writes, verified int
}

func newWorker(n int, c *Client, seed uint64) *worker {
	return &worker{n: n, c: c, rng: rand.New(rand.NewPCG(seed, 0x10ad)), texts: map[string]string{}, isGone: map[string]bool{},
		lat: map[string][]time.Duration{}, fails: map[string]int{}}
}

// words are real English, so the built-in embedder and the full-text
// analyzer see ordinary text.
var words = strings.Fields(`river mountain forest ocean storm rain engine valve turbine gear
violin piano melody rhythm bread cheese apple lemon planet comet orbit rocket
library archive ledger invoice harbor bridge tunnel signal`)

// fail counts an error of tool.
func (w *worker) fail(tool, format string, args ...any) {
	w.fails[tool]++
	w.sample(tool, format, args...)
}

// sample keeps the first messages of what went wrong.
func (w *worker) sample(tool, format string, args ...any) {
	if len(w.samp) < 5 {
		w.samp = append(w.samp, fmt.Sprintf("client %d: %s: %s", w.n, tool, fmt.Sprintf(format, args...)))
	}
}

// call times one call; a failure of either kind is counted and nil
// returned.
func (w *worker) call(ctx context.Context, tool string, args M) M {
	t0 := time.Now()
	m, toolErr, err := w.c.Call(ctx, tool, args)
	w.lat[tool] = append(w.lat[tool], time.Since(t0))
	switch {
	case err != nil:
		w.fail(tool, "%v", err)
		return nil
	case toolErr != "":
		w.fail(tool, "tool error: %.300s", toolErr)
		return nil
	}
	return m
}

// owned counts every id in m that this client did not write.
func (w *worker) owned(tool string, m M) {
	found := map[string]bool{}
	CollectIDs(m, found)
	for id := range found {
		switch _, mine := w.texts[id]; {
		case w.isGone[id]:
			w.lost++ // a delete that did not hold
			w.sample(tool, "returned %s, deleted earlier", id)
		case !mine:
			w.foreign++
			w.sample(tool, "returned %s, which another principal wrote", id)
		}
	}
}

func (w *worker) text(n int) string {
	return fmt.Sprintf("client%d note %d u%08x %s %s %s %s", w.n, n, w.rng.Uint32(),
		words[w.rng.IntN(len(words))], words[w.rng.IntN(len(words))], words[w.rng.IntN(len(words))], words[w.rng.IntN(len(words))])
}

// pick is a random live id.
func (w *worker) pick() string { return w.ids[w.rng.IntN(len(w.ids))] }

// run calls until deadline.
func (w *worker) run(ctx context.Context, deadline time.Time) {
	for n := 0; time.Now().Before(deadline) && ctx.Err() == nil; n++ {
		op := w.rng.IntN(20)
		if len(w.ids) < 2 {
			op = 0
		}
		w.step(ctx, op, n)
	}
}

// step makes the call op (0-19, in twentieths of the mix) chooses.
func (w *worker) step(ctx context.Context, op, n int) {
	thread := fmt.Sprintf("client%d-t%d", w.n, n%5)
	switch {
	case op < 6:
		text := w.text(n)
		if m := w.call(ctx, "store_context", M{"thread_id": thread, "source": "user", "text": text, "deduplicate": false}); m != nil {
			id, _ := m["context_id"].(string)
			if id == "" {
				w.fail("store_context", "no context_id in %v", m)
				return
			}
			w.texts[id], w.ids = text, append(w.ids, id)
			w.writes++
		}
	case op < 8:
		id, text := w.pick(), w.text(n)
		if w.call(ctx, "update_context", M{"context_id": id, "text": text}) != nil {
			w.texts[id] = text
			w.writes++
		}
	case op < 9:
		i := w.rng.IntN(len(w.ids))
		id := w.ids[i]
		if m := w.call(ctx, "delete_context", M{"context_ids": []string{id}}); m != nil {
			if c, _ := m["deleted_count"].(float64); c != 1 {
				w.fail("delete_context", "deleted_count %v for one own entry", m["deleted_count"])
			}
			delete(w.texts, id)
			w.ids[i] = w.ids[len(w.ids)-1]
			w.ids = w.ids[:len(w.ids)-1]
			w.gone, w.isGone[id] = append(w.gone, id), true
			w.writes++
		}
	case op < 12:
		id := w.pick()
		if m := w.call(ctx, "get_context_by_ids", M{"context_ids": []string{id}}); m != nil {
			list, _ := m["result"].([]any)
			if len(list) != 1 || list[0].(M)["text_content"] != w.texts[id] {
				w.lost++
				w.sample("get_context_by_ids", "%s reads %v, want text %q", id, list, w.texts[id])
			}
			w.owned("get_context_by_ids", m)
		}
	case op < 13:
		w.search(ctx, "search_context", M{"limit": 20})
	case op < 14:
		w.search(ctx, "search_context", M{"thread_id": thread, "limit": 20})
	case op < 15:
		// The unique token of a live entry: full-text search must find it.
		id := w.pick()
		token := strings.Fields(w.texts[id])[3]
		if m := w.search(ctx, "fts_search_context", M{"query": token, "limit": 5}); m != nil {
			found := map[string]bool{}
			CollectIDs(m, found)
			if !found[id] {
				w.lost++
				w.sample("fts_search_context", "%q does not find %s", token, id)
			}
		}
	case op < 16:
		w.search(ctx, "semantic_search_context", M{"query": strings.Join(strings.Fields(w.texts[w.pick()])[4:], " "), "limit": 10})
	case op < 17:
		w.search(ctx, "hybrid_search_context", M{"query": strings.Join(strings.Fields(w.texts[w.pick()])[3:], " "), "limit": 10})
	case op < 18:
		w.search(ctx, "grep_context", M{"pattern": words[w.rng.IntN(len(words))], "thread_id": thread})
	default:
		if m := w.call(ctx, "get_statistics", nil); m != nil {
			if got, _ := m["total_entries"].(float64); int(got) != len(w.ids) {
				w.lost++
				w.sample("get_statistics", "total_entries %v, want the %d live entries this client wrote", m["total_entries"], len(w.ids))
			}
		}
	}
}

// search runs a search tool (search_context when the server does not
// offer it) and checks its results are all the client's own.
func (w *worker) search(ctx context.Context, tool string, args M) M {
	if !w.c.Has(tool) {
		tool, args = "search_context", M{"limit": 20}
	}
	m := w.call(ctx, tool, args)
	if m != nil {
		w.owned(tool, m)
	}
	return m
}

// verify reads back every live entry with its last text and checks every
// deleted one is gone.
func (w *worker) verify(ctx context.Context) {
	for i := 0; i < len(w.ids); i += 100 {
		batch := w.ids[i:min(i+100, len(w.ids))]
		m, toolErr, err := w.c.Call(ctx, "get_context_by_ids", M{"context_ids": batch})
		if err != nil || toolErr != "" {
			w.fail("verify", "get_context_by_ids: %v %s", err, toolErr)
			w.lost += len(batch)
			continue
		}
		list, _ := m["result"].([]any)
		seen := map[string]bool{}
		for _, it := range list {
			e, _ := it.(M)
			id, _ := e["id"].(string)
			if e["text_content"] == w.texts[id] {
				seen[id] = true
			}
		}
		for _, id := range batch {
			if seen[id] {
				w.verified++
			} else {
				w.lost++
				w.sample("verify", "%s does not read back with its last text", id)
			}
		}
	}
	for i := 0; i < len(w.gone); i += 100 {
		batch := w.gone[i:min(i+100, len(w.gone))]
		m, toolErr, err := w.c.Call(ctx, "get_context_by_ids", M{"context_ids": batch})
		if err != nil || toolErr != "" {
			w.fail("verify", "get_context_by_ids of deleted entries: %v %s", err, toolErr)
			continue
		}
		if list, _ := m["result"].([]any); len(list) != 0 {
			w.lost += len(list) // a delete that did not hold
			w.sample("verify", "%d deleted entries read back", len(list))
		}
		w.verified += len(batch)
	}
}
