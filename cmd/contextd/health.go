package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const healthUsage = `usage: contextd health [-url URL]

Asks a running HTTP server for GET /health and exits 0 when it answers
{"status":"ok"}, 1 otherwise. The default URL is
http://127.0.0.1:$FASTMCP_PORT/health (port 8000 when unset). Container
health checks run it: distroless and scratch images have no curl.
`

// runHealth is `contextd health`: one GET of the health endpoint within
// five seconds.
func runHealth(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	fs := newFlagSet("health")
	url := fs.String("url", "", "the health endpoint")
	if code, done := parseFlags(fs, args, healthUsage, stdout, stderr); done {
		return code
	}
	if *url == "" {
		port := 8000
		if v, ok := lookupEnv("FASTMCP_PORT"); ok {
			p, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || p < 1 || p > 65535 {
				fmt.Fprintf(stderr, "contextd health: FASTMCP_PORT=%q is not a port\n", v)
				return exitConfig
			}
			port = p
		}
		*url = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) + "/health"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		fmt.Fprintf(stderr, "contextd health: %v\n", err)
		return exitUsage
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "contextd health: %v\n", err)
		return exitFail
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != `{"status":"ok"}` {
		fmt.Fprintf(stderr, "contextd health: %s answered %s: %s\n", *url, resp.Status, body)
		return exitFail
	}
	fmt.Fprintf(stdout, "ok\n")
	return exitOK
}
