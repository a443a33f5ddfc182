package httpjson

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/fakeapi"
)

func TestPostRetries(t *testing.T) {
	tests := []struct {
		name      string
		codes     []int // answers in order; the last repeats
		attempts  int
		wantCalls int
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
			var script []fakeapi.Reply
			for _, code := range tc.codes {
				script = append(script, fakeapi.Reply{Status: code, Body: `{"ok":true}`})
			}
			srv := fakeapi.New(t, fakeapi.Config{Script: script})
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
			if srv.Calls() != tc.wantCalls {
				t.Fatalf("calls = %d, want %d", srv.Calls(), tc.wantCalls)
			}
		})
	}
}

func TestPostTimeoutAndLimit(t *testing.T) {
	srv := fakeapi.New(t, fakeapi.Config{Delay: 20 * time.Millisecond, Script: []fakeapi.Reply{{Body: `{}`}}})
	slow := fakeapi.New(t, fakeapi.Config{Delay: 300 * time.Millisecond})
	c := Client{Timeout: 50 * time.Millisecond}
	var out map[string]any
	if err := c.Post(context.Background(), slow.URL, nil, 1, &out); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow answer: err = %v, want deadline exceeded", err)
	}
	c = Client{Limit: make(chan struct{}, 2)}
	err := fakeapi.Parallel(6, func() error {
		var out map[string]any
		return c.Post(context.Background(), srv.URL, nil, 1, &out)
	})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Peak() > 2 {
		t.Fatalf("peak concurrency %d, want at most 2", srv.Peak())
	}
}
