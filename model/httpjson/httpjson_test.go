package httpjson

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestPostRetries(t *testing.T) {
	tests := []struct {
		name      string
		codes     []int // answers in order; the last repeats
		attempts  int
		wantCalls int32
		wantCode  int // 0: success
	}{
		{"success", []int{200}, 3, 1, 0},
		{"retry 503 then success", []int{503, 200}, 3, 2, 0},
		{"retry 429", []int{429, 429, 200}, 3, 3, 0},
		{"exhausted", []int{500}, 3, 3, 500},
		{"no retry on 400", []int{400}, 5, 1, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(calls.Add(1))
				code := tc.codes[min(n, len(tc.codes))-1]
				w.WriteHeader(code)
				_, _ = w.Write([]byte(`{"ok":true}`))
			}))
			defer srv.Close()
			c := Client{Attempts: tc.attempts, BaseDelay: time.Millisecond}
			var out struct{ OK bool }
			err := c.Post(context.Background(), srv.URL, nil, map[string]any{"x": 1}, &out)
			var se *StatusError
			switch {
			case tc.wantCode == 0 && (err != nil || !out.OK):
				t.Fatalf("err = %v, out = %+v", err, out)
			case tc.wantCode != 0 && (!errors.As(err, &se) || se.Code != tc.wantCode):
				t.Fatalf("err = %v, want HTTP %d", err, tc.wantCode)
			}
			if calls.Load() != tc.wantCalls {
				t.Fatalf("calls = %d, want %d", calls.Load(), tc.wantCalls)
			}
		})
	}
}

func TestPostTimeoutAndLimit(t *testing.T) {
	var active, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := active.Add(1)
		defer active.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(300 * time.Millisecond):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	c := Client{Timeout: 50 * time.Millisecond}
	var out map[string]any
	if err := c.Post(context.Background(), slow.URL, nil, 1, &out); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow answer: err = %v, want deadline exceeded", err)
	}
	c = Client{Limit: make(chan struct{}, 2)}
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out map[string]any
			if err := c.Post(context.Background(), srv.URL, nil, 1, &out); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if peak.Load() > 2 {
		t.Fatalf("peak concurrency %d, want at most 2", peak.Load())
	}
}
