package main

import (
	"archive/zip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/contextd/contextd/internal/mcpstdio"
	"github.com/contextd/contextd/server"
)

// The project's addresses, declared in the bundle and server.json.
const (
	repoURL    = "https://github.com/contextd/contextd"
	docsURL    = repoURL + "/blob/main/docs/install.md"
	issuesURL  = repoURL + "/issues"
	registryID = "io.github.contextd/contextd"
	imageName  = "ghcr.io/contextd/contextd"
)

// bundleTool is a tool as a bundle manifest lists it.
type bundleTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// declaredTools are the tools contextd serves with the default settings,
// in tools/list order, each with the first sentence of its description.
func declaredTools() []bundleTool {
	var out []bundleTool
	for _, t := range append(server.ContextTools(), server.KnowledgeTools()...) {
		out = append(out, bundleTool{Name: t.Spec.Name, Description: mcpstdio.FirstSentence(t.Spec.Description)})
	}
	return out
}

func toolNames(ts []bundleTool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// userSetting is one entry of a bundle's user_config: a setting the host
// asks the user for and passes to the server as an environment variable.
type userSetting struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
	Default     string `json:"default"`
	Sensitive   bool   `json:"sensitive,omitempty"`
}

// userSettings maps each user_config key to its variable and declaration.
// Every setting has a default, so a host that leaves it alone still hands
// contextd a valid value (an empty DB_PATH or SEARCH_BACKEND exits 78).
var userSettings = []struct {
	key, env string
	setting  userSetting
}{
	{"db_path", "DB_PATH", userSetting{Type: "string", Title: "Database file",
		Description: "The SQLite file that holds the memory (DB_PATH); created if missing. Every client pointed at the same file shares one memory.",
		Default:     "${HOME}/.mcp/context_storage.db"}},
	{"search_backend", "SEARCH_BACKEND", userSetting{Type: "string", Title: "Full-text search backend",
		Description: "in-process (a Bleve BM25 index beside the database) or native (SQLite FTS5) (SEARCH_BACKEND).",
		Default:     "in-process"}},
	{"embedding_provider", "EMBEDDING_PROVIDER", userSetting{Type: "string", Title: "Embedding provider",
		Description: "builtin (offline, nothing to install), ollama (a local Ollama at OLLAMA_HOST), openai (needs the API key below) or local (a sentence-transformers or Model2Vec folder on disk, named below) (EMBEDDING_PROVIDER).",
		Default:     "builtin"}},
	{"embedding_model_path", "EMBEDDING_MODEL_PATH", userSetting{Type: "string", Title: "Local model folder",
		Description: "Only for the local embedding provider: the model's folder (config.json, tokenizer, model.safetensors), run in-process with no network (EMBEDDING_MODEL_PATH); leave empty otherwise.",
		Default:     ""}},
	{"openai_api_key", "OPENAI_API_KEY", userSetting{Type: "string", Title: "OpenAI API key",
		Description: "Only for the openai embedding provider (OPENAI_API_KEY); leave empty otherwise.",
		Default:     "", Sensitive: true}},
}

// mcpbPlatform is the bundle format's name of an operating system.
func mcpbPlatform(goos string) string {
	if goos == "windows" {
		return "win32"
	}
	return goos
}

// manifest is the manifest.json of t's bundle (MCP Bundle manifest
// version 0.3, the format's latest published schema): a binary server
// whose command is the bundled executable, the user settings mapped to
// environment variables, and the tools it serves.
func manifest(version string, t target, tools []bundleTool) map[string]any {
	entry := entryPoint(t)
	env := map[string]string{}
	config := map[string]userSetting{}
	for _, s := range userSettings {
		env[s.env] = "${user_config." + s.key + "}"
		config[s.key] = s.setting
	}
	return map[string]any{
		"manifest_version": "0.3",
		"name":             "contextd",
		"display_name":     "contextd",
		"version":          version,
		"description":      "Persistent, searchable memory for AI agents: store notes, decisions and documents; find them by words, meaning or both.",
		"long_description": "contextd is one pure-Go binary that gives agents a memory kept across sessions in a local SQLite file: " +
			"21 context tools (store, search by full text, meaning or both, navigate, share) and 11 knowledge tools " +
			"(containers of documents with keyword and semantic search). Nothing leaves the machine with the builtin embeddings.",
		"author":        map[string]any{"name": "The contextd authors", "url": repoURL},
		"repository":    map[string]any{"type": "git", "url": repoURL},
		"homepage":      repoURL,
		"documentation": docsURL,
		"support":       issuesURL,
		"server": map[string]any{
			"type":        "binary",
			"entry_point": entry,
			"mcp_config": map[string]any{
				"command": "${__dirname}/" + entry,
				"args":    []string{},
				"env":     env,
			},
		},
		"tools":           tools,
		"tools_generated": false,
		"keywords":        []string{"memory", "context", "search", "knowledge", "sqlite", "semantic search"},
		"compatibility":   map[string]any{"platforms": []string{mcpbPlatform(t.os)}},
		"user_config":     config,
	}
}

// entryPoint is the path of the binary inside t's bundle.
func entryPoint(t target) string {
	if t.os == "windows" {
		return "server/contextd.exe"
	}
	return "server/contextd"
}

// bundleTime is the modification time of every bundle entry, so the same
// binary always packs into the same bytes (and SHA256SUMS repeats).
var bundleTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// writeBundle packs t's binary and manifest.json into o.out/<bundle> and
// returns its path.
func writeBundle(o options, t target, bin string, tools []bundleTool) (string, error) {
	mf, err := json.MarshalIndent(manifest(o.version, t, tools), "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(o.out, t.bundleName())
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	zw := zip.NewWriter(f)
	if err := addFile(zw, "manifest.json", 0o644, strings.NewReader(string(mf)+"\n")); err != nil {
		f.Close()
		return "", err
	}
	bf, err := os.Open(bin)
	if err != nil {
		f.Close()
		return "", err
	}
	err = addFile(zw, entryPoint(t), 0o755, bf)
	bf.Close()
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}

// addFile adds one deflated entry with a Unix mode (the executable bit
// survives unpacking on macOS and Linux).
func addFile(zw *zip.Writer, name string, mode os.FileMode, r io.Reader) error {
	h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: bundleTime}
	h.SetMode(mode)
	w, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	return err
}
