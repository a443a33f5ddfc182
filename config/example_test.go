package config_test

import (
	"errors"
	"fmt"

	"github.com/contextd/contextd/config"
)

func ExampleFromEnv() {
	env := map[string]string{
		"DB_PATH":        "/srv/contextd/ctx.db",
		"MCP_TRANSPORT":  "streamable-http",
		"FASTMCP_HOST":   "127.0.0.1", // without authentication, loopback only
		"FASTMCP_PORT":   "9000",
		"DISABLED_TOOLS": "delete_context",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cfg, err := config.FromEnv(lookup) // os.LookupEnv in a real program
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Transport, cfg.HTTP.Addr(), cfg.Engine.DBPath, cfg.Server.DisabledTools)

	env["FASTMCP_PORT"] = "eighty"
	_, err = config.FromEnv(lookup)
	var e *config.Error
	if errors.As(err, &e) {
		fmt.Println(e.Var, "->", err)
	}
	// Output:
	// http 127.0.0.1:9000 /srv/contextd/ctx.db [delete_context]
	// FASTMCP_PORT -> invalid configuration: FASTMCP_PORT="eighty": must be an integer from 1 to 65535
}
