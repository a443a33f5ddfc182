package config

import (
	"strings"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/index"
	"github.com/contextd/contextd/internal/request"
)

// readFTS reads ENABLE_FTS (auto|true|false, or any boolean word),
// SEARCH_BACKEND (in-process|native) and FTS_LANGUAGE (the 29 languages of
// C.7). ENABLE_FTS=false also leaves fts_search_context unregistered
// auto and true register it and the tool reports unavailability.
func readFTS(r *envReader, c *Config) {
	f := &c.Engine.FTS
	if v, ok := r.lookup("ENABLE_FTS"); ok {
		w := strings.ToLower(strings.TrimSpace(v))
		if b, valid := request.ParseBoolWord(w); valid {
			f.Disable = !b
		} else if w != "auto" {
			r.fail("ENABLE_FTS", v, "must be auto, true or false")
		}
	}
	if f.Disable {
		c.Server.DisabledTools = append(c.Server.DisabledTools, "fts_search_context")
	}
	f.Backend = r.choice("SEARCH_BACKEND", contextd.BackendInProcess, strings.ToLower, contextd.BackendInProcess, contextd.BackendNative)
	f.Language = r.choice("FTS_LANGUAGE", index.DefaultLanguage, strings.ToLower, index.Languages()...)
}
