package main

import (
	"encoding/json"
	"fmt"
)

// serverSchemaURL is the MCP registry's server.json schema the file
// follows (vendored in testdata/server.schema.json).
const serverSchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// kv is a registry KeyValueInput: an environment variable a client sets.
type kv struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Default     string `json:"default,omitempty"`
	IsRequired  bool   `json:"isRequired,omitempty"`
	IsSecret    bool   `json:"isSecret,omitempty"`
}

// serverJSON is the release's server.json, the MCP registry's description
// of contextd: one stdio package a bundle (registryType mcpb, fetched from
// the GitHub release of version and checked against its SHA-256, which
// bundleSum gives), and the container image serving streamable HTTP. The
// image listens on every interface inside its container, so it needs a
// bearer token (protected mode refuses to serve it without one).
func serverJSON(version string, targets []target, bundleSum func(target) string) ([]byte, error) {
	var stdioEnv []kv
	for _, s := range userSettings {
		stdioEnv = append(stdioEnv, kv{Name: s.env, Description: s.setting.Description, Default: s.setting.Default, IsSecret: s.setting.Sensitive})
	}
	// ${HOME} is the bundle format's variable; a registry client reading
	// this file takes the documented default instead.
	stdioEnv[0].Default = ""
	stdioEnv[0].Description += " Default ~/.mcp/context_storage.db."
	var packages []any
	for _, t := range targets {
		sum := bundleSum(t)
		if len(sum) != 64 {
			return nil, fmt.Errorf("server.json: no SHA-256 for the %s bundle", t)
		}
		packages = append(packages, map[string]any{
			"registryType":         "mcpb",
			"identifier":           repoURL + "/releases/download/v" + version + "/" + t.bundleName(),
			"version":              version,
			"fileSha256":           sum,
			"transport":            map[string]any{"type": "stdio"},
			"environmentVariables": stdioEnv,
		})
	}
	packages = append(packages, map[string]any{
		"registryType": "oci",
		"identifier":   imageName + ":" + version,
		"version":      version,
		"runtimeHint":  "docker",
		"runtimeArguments": []any{
			map[string]any{"type": "named", "name": "-p", "value": "8000:8000", "description": "publish the HTTP port"},
			map[string]any{"type": "named", "name": "-v", "value": "contextd-data:/data", "description": "keep the database in a named volume"},
		},
		"transport": map[string]any{"type": "streamable-http", "url": "http://localhost:8000/mcp",
			"headers": []kv{{Name: "Authorization", Description: "Bearer followed by the MCP_AUTH_TOKEN the container was started with", IsRequired: true, IsSecret: true}}},
		"environmentVariables": []kv{
			{Name: "MCP_AUTH_TOKEN", Description: "the bearer token clients must send (the image sets MCP_AUTH_PROVIDER=simple_token)", IsRequired: true, IsSecret: true},
			{Name: "EMBEDDING_PROVIDER", Description: "builtin (offline), ollama, openai or local (a model folder mounted into the container, EMBEDDING_MODEL_PATH)", Default: "builtin"},
		},
	})
	doc := map[string]any{
		"$schema":     serverSchemaURL,
		"name":        registryID,
		"title":       "contextd",
		"description": "Persistent, searchable memory for AI agents: full-text, semantic and hybrid search",
		"version":     version,
		"repository":  map[string]any{"url": repoURL, "source": "github"},
		"websiteUrl":  repoURL,
		"packages":    packages,
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
