package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/contextd/contextd/config"
)

// The vendored schemas (their sources and licences: testdata/SOURCES.md).
const (
	manifestSchemaFile = "testdata/mcpb-manifest-v0.3.schema.json"
	serverSchemaFile   = "testdata/server.schema.json"
)

// compileSchema compiles a vendored JSON schema with format assertions on
// (uri, email, date-time are checked, not just annotated).
func compileSchema(t *testing.T, file string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "file:///" + filepath.Base(file)
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// instance round-trips v through JSON, as a host reading the file sees it.
func instance(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// mutated is a deep copy of doc with edit applied.
func mutated(t *testing.T, doc any, edit func(m map[string]any)) any {
	t.Helper()
	b, _ := json.Marshal(doc)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	return instance(t, m)
}

func obj(v any) map[string]any { return v.(map[string]any) }
func arr(v any) []any          { return v.([]any) }

// TestManifestSchema: the manifest of every platform's bundle validates
// against the bundle format's schema, and the validator rejects manifests
// broken the ways a hand edit breaks them.
func TestManifestSchema(t *testing.T) {
	s := compileSchema(t, manifestSchemaFile)
	tools := declaredTools()
	for _, tg := range defaultTargets {
		if err := s.Validate(instance(t, manifest("0.1.0", tg, tools))); err != nil {
			t.Errorf("%s manifest: %v", tg, err)
		}
	}
	good := instance(t, manifest("0.1.0", target{"darwin", "arm64"}, tools))
	for name, edit := range map[string]func(m map[string]any){
		"no author":                 func(m map[string]any) { delete(m, "author") },
		"unknown field":             func(m map[string]any) { m["binaries"] = []string{"x"} },
		"manifest version 0.9":      func(m map[string]any) { m["manifest_version"] = "0.9" },
		"server type exe":           func(m map[string]any) { obj(m["server"])["type"] = "exe" },
		"no mcp_config command":     func(m map[string]any) { delete(obj(obj(m["server"])["mcp_config"]), "command") },
		"env value not a string":    func(m map[string]any) { obj(obj(obj(m["server"])["mcp_config"])["env"])["DB_PATH"] = 1 },
		"setting without title":     func(m map[string]any) { delete(obj(obj(m["user_config"])["db_path"]), "title") },
		"setting of type path":      func(m map[string]any) { obj(obj(m["user_config"])["db_path"])["type"] = "path" },
		"platform windows":          func(m map[string]any) { obj(m["compatibility"])["platforms"] = []string{"windows"} },
		"tool without name":         func(m map[string]any) { delete(obj(arr(m["tools"])[0]), "name") },
		"homepage not a URI":        func(m map[string]any) { m["homepage"] = "not a uri" },
		"author email not an email": func(m map[string]any) { obj(m["author"])["email"] = "nobody" },
		"version a number":          func(m map[string]any) { m["version"] = 1 },
	} {
		if err := s.Validate(mutated(t, good, edit)); err == nil {
			t.Errorf("manifest with %s: the schema accepted it", name)
		}
	}
}

// TestManifestSettings: every environment variable the bundle sets comes
// from a declared user setting, the database path, search backend and
// embedding provider are among them, and their defaults (with the
// format's ${HOME} substituted) are a valid contextd configuration.
func TestManifestSettings(t *testing.T) {
	m := manifest("0.1.0", target{"linux", "amd64"}, declaredTools())
	env := obj(instance(t, m).(map[string]any)["server"].(map[string]any)["mcp_config"].(map[string]any)["env"])
	settings := obj(instance(t, m).(map[string]any)["user_config"])
	home := t.TempDir()
	values := map[string]string{}
	for name, v := range env {
		key, ok := strings.CutPrefix(v.(string), "${user_config.")
		key, ok2 := strings.CutSuffix(key, "}")
		s, declared := settings[key]
		if !ok || !ok2 || !declared {
			t.Errorf("env %s=%v does not name a declared user setting", name, v)
			continue
		}
		values[name] = strings.ReplaceAll(obj(s)["default"].(string), "${HOME}", home)
	}
	for _, name := range []string{"DB_PATH", "SEARCH_BACKEND", "EMBEDDING_PROVIDER"} {
		if _, ok := values[name]; !ok {
			t.Errorf("the bundle does not let the user set %s", name)
		}
	}
	known := map[string]bool{}
	for _, v := range config.Variables() {
		known[v.Name] = true
	}
	for name := range values {
		if !known[name] {
			t.Errorf("the bundle sets %s, which contextd does not read", name)
		}
	}
	if _, err := config.FromEnv(func(k string) (string, bool) { v, ok := values[k]; return v, ok }); err != nil {
		t.Fatalf("the bundle's defaults %v are not a valid configuration: %v", values, err)
	}
	if n := len(arr(instance(t, m).(map[string]any)["tools"])); n != 32 {
		t.Errorf("the manifest declares %d tools, want the 21 context and 11 knowledge tools", n)
	}
}

// TestServerJSONSchema: server.json validates against the MCP registry's
// schema, and the validator rejects the mistakes the registry refuses.
func TestServerJSONSchema(t *testing.T) {
	s := compileSchema(t, serverSchemaFile)
	fakeSum := func(tg target) string {
		h := sha256.Sum256([]byte(tg.bundleName()))
		return hex.EncodeToString(h[:])
	}
	b, err := serverJSON("0.1.0", defaultTargets, fakeSum)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if doc, err = jsonschema.UnmarshalJSON(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Fatalf("server.json: %v\n%s", err, b)
	}
	var transports []string
	for _, p := range arr(obj(doc)["packages"]) {
		transports = append(transports, obj(obj(p)["transport"])["type"].(string))
	}
	if got := strings.Join(transports, ","); got != "stdio,stdio,stdio,stdio,stdio,stdio,streamable-http" {
		t.Errorf("package transports %s: want six stdio bundles and the HTTP image", got)
	}
	pkg := func(m map[string]any, i int) map[string]any { return obj(arr(m["packages"])[i]) }
	for name, edit := range map[string]func(m map[string]any){
		"name without a slash":      func(m map[string]any) { m["name"] = "contextd" },
		"description over 100":      func(m map[string]any) { m["description"] = strings.Repeat("x", 101) },
		"no version":                func(m map[string]any) { delete(m, "version") },
		"package without transport": func(m map[string]any) { delete(pkg(m, 0), "transport") },
		"upper-case sha256":         func(m map[string]any) { pkg(m, 0)["fileSha256"] = strings.ToUpper(pkg(m, 0)["fileSha256"].(string)) },
		"package version latest":    func(m map[string]any) { pkg(m, 0)["version"] = "latest" },
		"http url without scheme":   func(m map[string]any) { obj(pkg(m, 6)["transport"])["url"] = "localhost:8000/mcp" },
		"transport type tcp":        func(m map[string]any) { obj(pkg(m, 0)["transport"])["type"] = "tcp" },
		"env var without name":      func(m map[string]any) { delete(obj(arr(pkg(m, 0)["environmentVariables"])[0]), "name") },
		"repository without source": func(m map[string]any) { delete(obj(m["repository"]), "source") },
		"website not a URI":         func(m map[string]any) { m["websiteUrl"] = "::" },
	} {
		if err := s.Validate(mutated(t, doc, edit)); err == nil {
			t.Errorf("server.json with %s: the schema accepted it", name)
		}
	}
	if _, err := serverJSON("0.1.0", defaultTargets, func(target) string { return "" }); err == nil {
		t.Error("server.json without the bundles' hashes was written")
	}
}
