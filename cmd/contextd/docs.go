package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/contextd/contextd/config"
)

const docsUsage = `usage: contextd docs [-out DIR] [-check]

Generates the two reference pages of the documentation from the code:
tools.md from the tools the server serves (it starts the server as
contextd does, on a temporary database, and lists its tools over MCP) and
configuration.md from the configuration reader's list of environment
variables.

  -out DIR  where to write them (default docs/ of the clone the command
            runs in)
  -check    write nothing; exit 1 naming each page that differs from what
            the code generates
`

// runDocs runs contextd docs.
func runDocs(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("docs")
	out := fs.String("out", repoData("docs"), "output folder")
	check := fs.Bool("check", false, "compare instead of writing")
	if code, done := parseFlags(fs, args, docsUsage, stdout, stderr); done {
		return code
	}
	tools, err := toolsMarkdown(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "contextd docs: %v\n", err)
		return exitFail
	}
	pages := map[string]string{"tools.md": tools, "configuration.md": configurationMarkdown()}
	code := exitOK
	for _, name := range []string{"tools.md", "configuration.md"} {
		path := filepath.Join(*out, name)
		if *check {
			if old, err := os.ReadFile(path); err != nil || string(old) != pages[name] {
				fmt.Fprintf(stderr, "contextd docs: %s is not what the code generates; run contextd docs\n", path)
				code = exitFail
			}
			continue
		}
		if err := os.WriteFile(path, []byte(pages[name]), 0o644); err != nil {
			fmt.Fprintf(stderr, "contextd docs: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	return code
}

// mcpTool is a tool as tools/list declares it.
type mcpTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema"`
	Annotations struct {
		Title           string `json:"title"`
		ReadOnlyHint    *bool  `json:"readOnlyHint"`
		DestructiveHint *bool  `json:"destructiveHint"`
		IdempotentHint  *bool  `json:"idempotentHint"`
	} `json:"annotations"`
}

// servedTools starts the server exactly as `contextd` does (serve, with
// the default configuration and a database in a temporary folder) and
// asks it for its tools over MCP on stdio.
func servedTools(ctx context.Context) ([]mcpTool, error) {
	dir, err := os.MkdirTemp("", "contextd-docs-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	env := map[string]string{"DB_PATH": filepath.Join(dir, "docs.db")}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr strings.Builder
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		code := serve(ctx, lookup, inR, outW, &stderr)
		outW.Close()
		done <- code
	}()
	defer func() { inW.Close(); <-done }()
	send := func(msg string) error { _, err := io.WriteString(inW, msg+"\n"); return err }
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 0, 1<<20), 64<<20)
	// await returns the result of the response with id.
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
		return nil, fmt.Errorf("the server ended without answering: %s", strings.TrimSpace(stderr.String()))
	}
	if err := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"contextd-docs","version":"1"}}}`); err != nil {
		return nil, err
	}
	if _, err := await(1); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, err
	}
	var tools []mcpTool
	cursor := ""
	for id := 2; ; id++ {
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
			Tools      []mcpTool `json:"tools"`
			NextCursor string    `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, page.Tools...)
		if cursor = page.NextCursor; cursor == "" {
			return tools, nil
		}
	}
}

// toolsMarkdown is docs/tools.md: every served tool with its parameters.
func toolsMarkdown(ctx context.Context) (string, error) {
	tools, err := servedTools(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Tools\n\n<!-- Generated by `contextd docs` from the tools the server serves; do not edit. -->\n\n")
	fmt.Fprintf(&b, "contextd serves %d tools with the default configuration (`DISABLED_TOOLS` leaves any of them out; ", len(tools))
	b.WriteString("see [configuration.md](configuration.md)). Every tool answers JSON; an error is a tool result marked `isError` whose text says what is wrong. ")
	b.WriteString("Arguments are checked strictly: an unknown parameter or a value of the wrong type is refused before the tool runs. ")
	b.WriteString("How the tools behave together is in [tool-behaviour.md](tool-behaviour.md), [search.md](search.md), [knowledge.md](knowledge.md) and [security.md](security.md).\n\n")
	b.WriteString("| tool | kind | summary |\n| --- | --- | --- |\n")
	for _, t := range tools {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s |\n", t.Name, t.Name, toolKind(t), cell(firstSentence(t.Description)))
	}
	for _, t := range tools {
		fmt.Fprintf(&b, "\n## %s\n\n", t.Name)
		if t.Annotations.Title != "" {
			fmt.Fprintf(&b, "**%s** (%s)\n\n", t.Annotations.Title, toolKind(t))
		}
		b.WriteString(strings.TrimSpace(t.Description) + "\n\n")
		props, _ := t.InputSchema["properties"].(map[string]any)
		if len(props) == 0 {
			b.WriteString("No parameters.\n")
			continue
		}
		required := map[string]bool{}
		if req, ok := t.InputSchema["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					required[s] = true
				}
			}
		}
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool { // required first, then by name
			if required[names[i]] != required[names[j]] {
				return required[names[i]]
			}
			return names[i] < names[j]
		})
		b.WriteString("| parameter | type | required | default | description |\n| --- | --- | --- | --- | --- |\n")
		for _, n := range names {
			p, _ := props[n].(map[string]any)
			req := ""
			if required[n] {
				req = "yes"
			}
			def := ""
			if d, ok := p["default"]; ok {
				j, _ := json.Marshal(d)
				def = "`" + string(j) + "`"
			}
			desc, _ := p["description"].(string)
			if lim := limits(p); lim != "" {
				desc = strings.TrimSpace(desc + " (" + lim + ")")
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", n, cell(schemaType(p)), req, cell(def), cell(desc))
		}
	}
	return b.String(), nil
}

// toolKind says what a tool does to the stored data, from its annotations.
func toolKind(t mcpTool) string {
	switch {
	case t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint:
		return "read-only"
	case t.Annotations.DestructiveHint != nil && *t.Annotations.DestructiveHint:
		return "writes, destructive"
	}
	return "writes"
}

// schemaType renders a JSON schema's type: enums, arrays, unions.
func schemaType(p map[string]any) string {
	if enum, ok := p["enum"].([]any); ok && len(enum) > 0 {
		vals := make([]string, len(enum))
		for i, v := range enum {
			j, _ := json.Marshal(v)
			vals[i] = "`" + string(j) + "`"
		}
		return "one of " + strings.Join(vals, ", ")
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := p[key].([]any); ok && len(alts) > 0 {
			var parts []string
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok {
					parts = append(parts, schemaType(m))
				}
			}
			return strings.Join(parts, " or ")
		}
	}
	switch t := p["type"].(type) {
	case string:
		if t == "array" {
			if items, ok := p["items"].(map[string]any); ok {
				return "array of " + schemaType(items)
			}
		}
		return t
	case []any:
		parts := make([]string, 0, len(t))
		for _, x := range t {
			parts = append(parts, fmt.Sprint(x))
		}
		return strings.Join(parts, " or ")
	}
	return "any"
}

// limits renders a schema's bounds.
func limits(p map[string]any) string {
	var out []string
	for _, k := range []struct{ key, text string }{
		{"minimum", "at least"}, {"maximum", "at most"}, {"minLength", "at least %v characters"},
		{"maxLength", "at most %v characters"}, {"minItems", "at least %v items"}, {"maxItems", "at most %v items"},
	} {
		if v, ok := p[k.key]; ok {
			if strings.Contains(k.text, "%v") {
				text := k.text
				if f, ok := v.(float64); ok && f == 1 { // "1 characters"
					text = strings.Replace(strings.Replace(text, "characters", "character", 1), "items", "item", 1)
				}
				out = append(out, fmt.Sprintf(text, v))
			} else {
				out = append(out, fmt.Sprintf("%s %v", k.text, v))
			}
		}
	}
	return strings.Join(out, ", ")
}

// firstSentence is the first sentence (or line) of a description.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}

// cell makes text fit one Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "|", `\|`)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// configurationMarkdown is docs/configuration.md: every environment
// variable of config.Variables, grouped.
func configurationMarkdown() string {
	var b strings.Builder
	b.WriteString("# Configuration\n\n<!-- Generated by `contextd docs` from config.Variables; do not edit. -->\n\n")
	b.WriteString("Every setting of contextd is an environment variable, read once at start-up. ")
	b.WriteString("A bad value stops the server with exit code 78 and a message naming the variable, for example ")
	b.WriteString("`contextd: configuration error: invalid configuration: DB_PATH=\"/x\": /x is a directory; give a file path`. ")
	b.WriteString("Boolean variables accept `true`, `false`, `1`, `0`, `yes`, `no`, `on` and `off`. ")
	b.WriteString("The Python-only `FASTMCP_ENABLE_RICH_LOGGING`, `FASTMCP_LOG_LEVEL`, `FASTMCP_LOG_ENABLED` and `FASTMCP_STRICT_INPUT_VALIDATION` of the original server are ignored.\n")
	group := ""
	for _, v := range config.Variables() {
		if v.Group != group {
			group = v.Group
			fmt.Fprintf(&b, "\n## %s\n\n| variable | default | meaning |\n| --- | --- | --- |\n", group)
		}
		meaning := v.Meaning
		if v.ReadBy != "" {
			meaning += " (read by " + v.ReadBy + ")"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", v.Name, cell(v.Default), cell(meaning))
	}
	return b.String()
}
