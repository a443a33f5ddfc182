package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/contextd/contextd/internal/mcpstdio"
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
	tools, err := mcpstdio.ListTools(in, outPipe, "contextd-release")
	in.Close()
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("exit: %w", werr)
	}
	if err != nil {
		return nil, fmt.Errorf("%w (stderr: %s)", err, strings.TrimSpace(stderr.String()))
	}
	names := make([]string, len(tools))
	for i, raw := range tools {
		var t struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		names[i] = t.Name
	}
	return names, nil
}
