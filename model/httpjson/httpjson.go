// Package httpjson owns what the HTTP model providers share: one JSON
// POST with a per-attempt timeout, retries with exponential backoff on
// transport errors, 408, 429 and 5xx, and a bound on concurrent requests.
//
//	c := httpjson.Client{Timeout: time.Minute, Attempts: 5, BaseDelay: 3 * time.Second, Limit: make(chan struct{}, 2)}
//	err := c.Post(ctx, url, headers, reqBody, &respBody)
package httpjson

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// StatusError is a non-2xx answer.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.Code, e.Body)
}

// Client posts JSON with retries. The zero value makes one attempt with no
// timeout and no concurrency bound.
type Client struct {
	HTTP      *http.Client  // nil: http.DefaultClient
	Timeout   time.Duration // per attempt; 0: none
	Attempts  int           // total attempts (default 1)
	BaseDelay time.Duration // backoff before attempt k+1 is BaseDelay·2^(k-1)
	// Limit bounds concurrent requests by its capacity; copies of a Client
	// share it. nil: unbounded.
	Limit chan struct{}
}

func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code == http.StatusRequestTimeout || se.Code == http.StatusTooManyRequests || se.Code >= 500
	}
	return !errors.Is(err, context.Canceled)
}

// Post sends body as JSON to url and decodes the answer into out.
func (c *Client) Post(ctx context.Context, url string, headers map[string]string, body, out any) error {
	if c.Limit != nil {
		select {
		case c.Limit <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-c.Limit }()
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	attempts := max(c.Attempts, 1)
	delay := c.BaseDelay
	for k := 1; ; k++ {
		err = c.once1(ctx, url, headers, payload, out)
		if err == nil || k >= attempts || !retryable(err) || ctx.Err() != nil {
			return err
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return err
		}
		delay *= 2
	}
}

func (c *Client) once1(ctx context.Context, url string, headers map[string]string, payload []byte, out any) error {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		msg := string(b)
		if len(msg) > 500 {
			msg = msg[:500]
		}
		return &StatusError{Code: resp.StatusCode, Body: msg}
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("decode response: %w", err)
	}
	return nil
}
