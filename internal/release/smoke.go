package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// smokeResult is what a release binary answered.
type smokeResult struct {
	versionLine string // the first line of `contextd version`
	tools       int    // how many tools tools/list listed
}

// smoke runs bin once as a user would: `bin version` must name version,
// then `bin` serves MCP on stdio with a database in a temporary folder and
// must answer initialize and list exactly the tools want (in any order).
// The environment holds only HOME, DB_PATH and PATH, so the settings of
// the machine running the release do not leak in.
func smoke(ctx context.Context, bin, version string, want []string) (smokeResult, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var res smokeResult
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		return res, fmt.Errorf("version: %w", err)
	}
	res.versionLine, _, _ = strings.Cut(string(out), "\n")
	if res.versionLine != "contextd "+version {
		return res, fmt.Errorf("version says %q, want %q", res.versionLine, "contextd "+version)
	}
	dir, err := os.MkdirTemp("", "contextd-release-smoke-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	names, err := stdioToolNames(ctx, bin, []string{"HOME=" + dir, "DB_PATH=" + filepath.Join(dir, "smoke.db"), "PATH=" + os.Getenv("PATH")})
	if err != nil {
		return res, err
	}
	res.tools = len(names)
	slices.Sort(names)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(names, want) {
		return res, fmt.Errorf("tools/list lists %d tools %v, want the %d the server package defines %v", len(names), names, len(want), want)
	}
	return res, nil
}

// stdioToolNames starts bin with env, speaks MCP to it on stdio
// (initialize, notifications/initialized, tools/list page by page), then
// closes its stdin, which ends it, and returns the tool names.
func stdioToolNames(ctx context.Context, bin string, env []string) ([]string, error) {
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	names, err := listTools(in, outPipe)
	in.Close()
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("exit: %w", werr)
	}
	if err != nil {
		return nil, fmt.Errorf("%w (stderr: %s)", err, strings.TrimSpace(stderr.String()))
	}
	return names, nil
}

// listTools is the client side of the exchange.
func listTools(in io.Writer, out io.Reader) ([]string, error) {
	lines := bufio.NewScanner(out)
	lines.Buffer(make([]byte, 0, 1<<20), 64<<20)
	send := func(msg string) error { _, err := io.WriteString(in, msg+"\n"); return err }
	await := func(id int) (json.RawMessage, error) {
		for lines.Scan() {
			var resp struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(lines.Bytes(), &resp) != nil || resp.ID == nil || *resp.ID != id {
				continue
			}
			if resp.Error != nil {
				return nil, errors.New(resp.Error.Message)
			}
			return resp.Result, nil
		}
		return nil, errors.New("the server ended without answering")
	}
	if err := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"contextd-release","version":"1"}}}`); err != nil {
		return nil, err
	}
	if _, err := await(1); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, err
	}
	var names []string
	cursor := ""
	for id := 2; id < 100; id++ {
		params := "{}"
		if cursor != "" {
			b, _ := json.Marshal(map[string]string{"cursor": cursor})
			params = string(b)
		}
		if err := send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, id, params)); err != nil {
			return nil, err
		}
		raw, err := await(id)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		var page struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		for _, t := range page.Tools {
			names = append(names, t.Name)
		}
		if cursor = page.NextCursor; cursor == "" {
			return names, nil
		}
	}
	return nil, errors.New("tools/list: more than 98 pages")
}
