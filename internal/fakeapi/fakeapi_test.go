package fakeapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestScriptThenHandler(t *testing.T) {
	srv := New(t, Config{
		Path:   "/v1/x",
		Script: []Reply{{Status: 503, Body: "loading"}, {Status: 429}},
		Handler: func(r Request) Reply {
			var in map[string]int
			if err := r.JSON(&in); err != nil {
				return Reply{Status: 400, Body: err.Error()}
			}
			return Reply{Body: map[string]int{"n": r.N, "x": in["x"]}}
		},
	})
	var got []string
	for _, path := range []string{"/v1/x", "/v1/x", "/v1/x", "/other", "/v1/x"} {
		code, body := post(t, srv.URL+path, `{"x":7}`)
		got = append(got, fmt.Sprintf("%d %s", code, strings.TrimSpace(body)))
	}
	want := `[503 loading 429  200 {"n":3,"x":7} 404 404 page not found 200 {"n":5,"x":7}]`
	if fmt.Sprint(got) != want {
		t.Fatalf("answers %q, want %q", got, want)
	}
	reqs := srv.Requests()
	if srv.Calls() != 5 || len(reqs) != 5 || reqs[3].Path != "/other" || string(reqs[4].Body) != `{"x":7}` || reqs[4].N != 5 {
		t.Fatalf("calls %d, requests %+v", srv.Calls(), reqs)
	}
}

func TestLastReplyRepeats(t *testing.T) {
	srv := New(t, Config{Script: []Reply{{Status: 500}, {Body: `{"ok":true}`}}})
	for _, want := range []string{"500 ", `200 {"ok":true}`, `200 {"ok":true}`} {
		if code, body := post(t, srv.URL, "{}"); fmt.Sprintf("%d %s", code, body) != want {
			t.Fatalf("answer %d %s, want %s", code, body, want)
		}
	}
	if code, body := post(t, New(t, Config{}).URL, "{}"); code != 200 || body != "" {
		t.Fatalf("no script: %d %q, want an empty 200", code, body)
	}
}

func TestDelayAndPeak(t *testing.T) {
	srv := New(t, Config{Delay: 300 * time.Millisecond})
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		}()
	}
	wg.Wait()
	if srv.Peak() != 3 {
		t.Fatalf("peak %d, want 3", srv.Peak())
	}
	// A client that gives up is let go at once.
	slow := New(t, Config{Delay: 5 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, slow.URL, strings.NewReader("{}"))
	start := time.Now()
	if _, err := http.DefaultClient.Do(req); err == nil || time.Since(start) > 3*time.Second {
		t.Fatalf("err = %v after %v, want a deadline error", err, time.Since(start))
	}
}

func TestFakeVectors(t *testing.T) {
	if got := fmt.Sprint(Texts(3), Vector("t2", 3), Vector("x", 2)); got != "[t0 t1 t2] [2 3 4] [0 1]" {
		t.Fatalf("got %s", got)
	}
}

func TestParallel(t *testing.T) {
	var mu sync.Mutex
	runs := 0
	err := Parallel(4, func() error {
		mu.Lock()
		defer mu.Unlock()
		runs++
		if runs%2 == 0 {
			return fmt.Errorf("run %d", runs)
		}
		return nil
	})
	if runs != 4 || err == nil || err.Error() != "run 2\nrun 4" && err.Error() != "run 4\nrun 2" {
		t.Fatalf("runs %d, err %v; want 4 runs, errors of runs 2 and 4", runs, err)
	}
	if err := Parallel(3, func() error { return nil }); err != nil {
		t.Fatalf("err = %v, want nil", err)
	}
}
