package config

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestVariablesMatchReader: every variable FromEnv looks up, in a set of
// configurations that between them reach every branch of the reader, is
// in Variables, and every variable of Variables that FromEnv should read
// is looked up in one of them. Variables is what docs/configuration.md
// is generated from, so the page lists exactly what the reader reads.
func TestVariablesMatchReader(t *testing.T) {
	dir := t.TempDir()
	scenarios := []map[string]string{
		{},
		{"STORAGE_BACKEND": "postgresql"},
		{"STORAGE_BACKEND": "postgresql", "POSTGRESQL_CONNECTION_STRING": "postgresql://u:p@localhost:5432/db"},
		{"MCP_TRANSPORT": "http", "MCP_AUTH_PROVIDER": "simple_token", "MCP_AUTH_TOKEN": "x"},
		{"MCP_TRANSPORT": "http", "MCP_AUTH_PROVIDER": "jwt", "MCP_AUTH_JWT_PUBLIC_KEY": "secret", "MCP_AUTH_JWT_ALGORITHM": "HS256"},
		{"EMBEDDING_PROVIDER": "openai", "SUMMARY_PROVIDER": "openai", "OPENAI_API_KEY": "k", "RERANKING_PROVIDER": "tei", "RERANKING_URL": "http://localhost:1"},
		{"EMBEDDING_PROVIDER": "ollama", "SUMMARY_PROVIDER": "ollama"},
		{"SUMMARY_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "k"},
		{"EMBEDDING_PROVIDER": "azure"}, {"EMBEDDING_PROVIDER": "huggingface"}, {"EMBEDDING_PROVIDER": "voyage"},
		{"ENABLE_EMBEDDING_COMPRESSION": "false"}, {"ENABLE_SUMMARY_GENERATION": "false"}, {"ENABLE_EMBEDDING_GENERATION": "false"},
		{"SEARCH_BACKEND": "native"}, {"ENABLE_RERANKING": "false"}, {"ENABLE_CHUNKING": "false"},
		{"EMBEDDING_PROVIDER": "local", "EMBEDDING_MODEL_PATH": "../model/local/testdata/mean-norm", "EMBEDDING_QUERY_PREFIX": "q: ", "EMBEDDING_PASSAGE_PREFIX": "p: ",
			"ENABLE_RERANKING": "true", "RERANKING_PROVIDER": "local", "RERANKING_MODEL_PATH": "../model/local/testdata/cross"},
	}
	listed := map[string]Variable{}
	for _, v := range Variables() {
		if _, dup := listed[v.Name]; dup {
			t.Errorf("Variables lists %s twice", v.Name)
		}
		listed[v.Name] = v
		if v.Meaning == "" || v.Default == "" || v.Group == "" {
			t.Errorf("%s: Default, Group and Meaning must all be given", v.Name)
		}
	}
	read := map[string]bool{}
	for _, env := range scenarios {
		if _, ok := env["DB_PATH"]; !ok {
			env["DB_PATH"] = dir + "/ctx.db"
		}
		_, _ = FromEnv(func(name string) (string, bool) {
			read[name] = true
			v, ok := env[name]
			return v, ok
		})
	}
	for _, name := range slices.Sorted(maps.Keys(read)) {
		if _, ok := listed[name]; !ok {
			t.Errorf("FromEnv reads %s, which Variables does not list: add it to config/variables.go", name)
		}
	}
	for name, v := range listed {
		if v.ReadBy == "" && !read[name] {
			t.Errorf("Variables lists %s but FromEnv never reads it (set ReadBy if something else does)", name)
		}
		if v.ReadBy != "" && read[name] {
			t.Errorf("%s: FromEnv reads it, so ReadBy %q is wrong", name, v.ReadBy)
		}
		if strings.ContainsAny(v.Name, " ,") {
			t.Errorf("%q: one variable per entry", v.Name)
		}
	}
}
