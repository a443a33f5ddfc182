package config

import (
	"errors"
	"strings"
	"testing"
)

func TestConfigFTS(t *testing.T) {
	tests := []struct {
		name                      string
		env                       map[string]string
		enable, backend, language string
		disabled                  bool
		badVar                    string
	}{
		{"defaults", nil, "auto", "in-process", "english", false, ""},
		{"off", map[string]string{"ENABLE_FTS": "False"}, "false", "in-process", "english", true, ""},
		{"on word", map[string]string{"ENABLE_FTS": "yes"}, "true", "in-process", "english", false, ""},
		{"native german", map[string]string{"SEARCH_BACKEND": "Native", "FTS_LANGUAGE": "German"}, "auto", "native", "german", false, ""},
		{"bad language", map[string]string{"FTS_LANGUAGE": "klingon"}, "", "", "", false, "FTS_LANGUAGE"},
		{"bad backend", map[string]string{"SEARCH_BACKEND": "elastic"}, "", "", "", false, "SEARCH_BACKEND"},
		{"bad enable", map[string]string{"ENABLE_FTS": "maybe"}, "", "", "", false, "ENABLE_FTS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"DB_PATH": "/tmp/x.db"}
			for k, v := range tc.env {
				env[k] = v
			}
			c, err := FromEnv(lookupMap(env))
			if tc.badVar != "" {
				var ce *Error
				if !errors.As(err, &ce) || ce.Var != tc.badVar {
					t.Fatalf("want an *Error on %s, got %v", tc.badVar, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f := c.Engine.FTS
			if f.Disable != (tc.enable == "false") || f.Backend != tc.backend || f.Language != tc.language {
				t.Fatalf("got %+v", f)
			}
			off := strings.Contains(strings.Join(c.Server.DisabledTools, ","), "fts_search_context")
			if off != tc.disabled {
				t.Fatalf("fts_search_context disabled = %v, want %v", off, tc.disabled)
			}
		})
	}
}
