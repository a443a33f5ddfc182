package server

import (
	"strings"
	"text/template"
)

// toolPurposes is the one-line purpose of each built-in tool in the tool
// table of the instructions, in reference order. A tool another package
// contributes (Options.Tools) is described by its title instead.
var toolPurposes = map[string]string{
	"store_context":           "Store one entry (text, images, metadata, tags) in a thread",
	"search_context":          "Browse/filter entries newest first; truncated previews",
	"get_context_by_ids":      "Fetch full, untruncated entries by ID or ID prefix",
	"update_context":          "Change text, metadata (or metadata_patch), tags, images, visibility",
	"delete_context":          "Delete your entries by IDs or by thread (irreversible)",
	"list_threads":            "List threads with entry counts and last activity",
	"get_statistics":          "Entry counts, storage size and feature status",
	"hybrid_search_context":   "Ranked search: full-text + semantic, scores fused with weights set by the query (best default)",
	"fts_search_context":      "Ranked keyword search: stemming, phrase, prefix, boolean",
	"semantic_search_context": "Ranked search by meaning (vector similarity)",
	"grep_context":            "Exact literal/regex matches with line numbers and offsets",
	"navigate_context":        "Markdown heading outline of one entry, with offsets",
	"read_context_range":      "Read part of one entry by characters, lines or outline node",
	"plan_context_sync":       "Plan creates/updates/deletes to sync a document corpus",
	"list_ingest_state":       "Page through your managed corpus entries of a thread",
	"share_context":           "Grant a user or group read or write access to your entry",
	"unshare_context":         "Remove one grant from your entry",
	"list_context_grants":     "List the grants of your entry",
	"store_context_batch":     "Store up to 100 entries in one call",
	"update_context_batch":    "Apply up to 100 updates in one call",
	"delete_context_batch":    "Delete by combined criteria: IDs, threads, source, age",
}

// instructionRow is one row of the tool table.
type instructionRow struct{ Name, Purpose string }

// instructionsTemplate is the text of R-508. Every sentence that names a
// tool is conditional on that tool being registered, so a deployment that
// disables or lacks a tool never points a client at it.
var instructionsTemplate = template.Must(template.New("instructions").Funcs(template.FuncMap{
	"has": func(registered map[string]bool, names ...string) bool {
		for _, n := range names {
			if !registered[n] {
				return false
			}
		}
		return true
	},
}).Parse(`# MCP Context Server

Persistent, searchable memory for agents: store context entries in threads, find them again across sessions, and share them with other principals.
{{- if .Rows}}

## Tools

| Tool | Purpose |
|---|---|
{{- range .Rows}}
| ` + "`{{.Name}}`" + ` | {{.Purpose}} |
{{- end}}
{{- end}}

## Concepts

- **thread_id** groups related entries: one per session, task, project or knowledge base. Scope calls with thread_id while working inside a thread; omit it to search across threads.
- **source** is "user" or "agent": who produced the content. Filter on it to recall what the user asked versus what agents concluded.
{{- if has .R "navigate_context" "read_context_range"}}
- **text**: store Markdown. Headings make entries navigable with navigate_context and read_context_range.
{{- else}}
- **text**: store Markdown.
{{- end}}
- **metadata** is a free-form JSON object. Include descriptive fields (agent_name, task_name, status, project) so entries can be filtered; status, agent_name, task_name, project and report_type are indexed by default. Link entries into a knowledge graph with ` + "`metadata: {\"references\": {\"context_ids\": [\"<id>\", ...]}}`" + `{{if has .R "get_context_by_ids"}} and follow links with get_context_by_ids{{end}}.
- **tags** are short lowercase labels for cross-cutting categories; tag filters match ANY of the given tags.
- **IDs** are 32-character hex strings; every ID parameter also accepts the hyphenated UUID form or a unique prefix of 8 or more hex characters.
- **Access**: you own what you store. Entries are private (you and the principals you share with) or public (everyone). You only ever see, count and change entries you may read; only the owner deletes, shares or changes visibility.

## Best practices

**Searching**
{{- if has .R "get_context_by_ids"}}
- Search results carry text truncated to about 300 characters plus a summary, so you can scan many entries cheaply. Always fetch the entries that matter with get_context_by_ids for the full text.
{{- else}}
- Search results carry text truncated to about 300 characters plus a summary, so you can scan many entries cheaply.
{{- end}}
{{- if has .R "search_context" "hybrid_search_context"}}
- Use search_context to load a thread's recent history (for example by source), and hybrid_search_context to discover related decisions and work across threads.
{{- else if has .R "search_context"}}
- Use search_context to load a thread's recent history (for example by source).
{{- end}}
{{- if has .R "hybrid_search_context" "fts_search_context" "semantic_search_context"}}
- Prefer hybrid_search_context over fts_search_context and semantic_search_context.
{{- end}}
- Narrow with metadata (equality) or metadata_filters (operators such as gt, in, contains, exists), tags and start_date/end_date.
{{- if has .R "grep_context" "read_context_range"}}
- Use grep_context to find exact strings, then read_context_range with its offsets to read just that part of a long entry.
{{- else if has .R "grep_context"}}
- Use grep_context to find exact strings in long entries.
{{- end}}

**Storing**
- Always add descriptive metadata and tags, and record metadata.references.context_ids for the entries your work builds on.
{{- if has .R "store_context"}}
- Storing the same text twice in a row is harmless: deduplication updates the existing entry. Pass deduplicate=false when you really want a second copy.
{{- end}}
{{- if has .R "store_context_batch" "update_context_batch" "delete_context_batch"}}
- Use the batch tools for many entries at once; they are atomic by default.
{{- end}}
{{- if has .R "update_context"}}

**Updating**
- Use metadata_patch (not metadata) in update_context to change some metadata fields while preserving the others; a null value deletes a key.
- tags and images given to update_context replace the whole list.
{{- end}}
{{- if has .R "get_context_by_ids"}}

**Retrieving**
- Check metadata.references.context_ids in retrieved entries and follow them with get_context_by_ids for deeper context.
{{- end}}
{{- if has .R "search_context" "get_context_by_ids" "store_context"}}

## Using with skills and workflows

Skills and agent workflows can rely on these tools as their memory: at the start of a task, recall the thread with search_context and read what matters with get_context_by_ids; during the task, store decisions, results and open questions with store_context under the same thread_id and descriptive metadata; at the end, store a summary entry that references the entries it builds on.
{{- end}}
`))

// DefaultInstructions returns the instructions sent at initialize when
// MCP_SERVER_INSTRUCTIONS is unset, for a server whose registered
// tools are tools, in tools/list order: the table lists exactly those
// tools, and advice that names a tool appears only when it is registered.
func DefaultInstructions(tools []Tool) string {
	data := struct {
		Rows []instructionRow
		R    map[string]bool
	}{R: map[string]bool{}}
	for _, t := range tools {
		name := t.Spec.Name
		purpose := toolPurposes[name]
		if purpose == "" {
			purpose = contributedPurpose(t)
		}
		data.Rows = append(data.Rows, instructionRow{Name: name, Purpose: purpose})
		data.R[name] = true
	}
	var b strings.Builder
	if err := instructionsTemplate.Execute(&b, data); err != nil {
		// The template is fixed and its data are strings; a failure here
		// is a bug in this file, caught by the golden tests.
		panic("server: instructions template: " + err.Error())
	}
	return b.String()
}

// contributedPurpose describes a tool of another package: its annotation
// title, else the first line of its description.
func contributedPurpose(t Tool) string {
	if t.Spec.Annotations.Title != "" {
		return t.Spec.Annotations.Title
	}
	d, _, _ := strings.Cut(strings.TrimSpace(t.Spec.Description), "\n")
	return strings.ReplaceAll(d, "|", `\|`)
}
