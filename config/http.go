package config

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// readHTTP reads the streamable HTTP transport and its authentication. It
// runs after the access-control variables, since simple_token and none
// callers are ACCESS_CONTROL_DEFAULT_PRINCIPAL. Auth misconfiguration is
// reported like any invalid variable (exit 78), on stdio too, so a broken
// deployment file fails the same way whichever transport it selects: what
// only the provider can check (a key that does not parse, say) is
// reported by server/setup as a *Error too.
func readHTTP(r *envReader, c *Config) {
	h := &c.HTTP
	h.Host = "0.0.0.0"
	if v, ok := r.lookup("FASTMCP_HOST"); ok && strings.TrimSpace(v) != "" {
		h.Host = strings.TrimSpace(v)
	}
	h.Port = r.intRange("FASTMCP_PORT", 8000, 1, 65535)
	h.Stateful = !r.boolean("FASTMCP_STATELESS_HTTP", true)
	h.JSONResponse = r.boolean("FASTMCP_JSON_RESPONSE", false)
	if v, ok := r.lookup("SHUTDOWN_TIMEOUT_S"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) || f <= 0 || f > 3600 {
			r.fail("SHUTDOWN_TIMEOUT_S", v, "must be a number of seconds greater than 0 and at most 3600")
		} else {
			h.ShutdownTimeout = time.Duration(f * float64(time.Second))
		}
	}

	// The default request cap lets the largest legal store through: every
	// image at MAX_TOTAL_SIZE_MB in base64 (4/3), the longest text at four
	// UTF-8 bytes per character, and 1 MiB for the JSON-RPC envelope and
	// the other arguments.
	e := c.Engine
	def := (int64(e.MaxTotalSizeMB)<<20*4+2)/3 + 4*int64(e.MaxTextChars) + 1<<20
	h.MaxRequestBytes = r.int64Range("MCP_MAX_REQUEST_BYTES", def, 1024, math.MaxInt64)
	c.Server.MaxMessageBytes = h.MaxRequestBytes // stdio's cap is HTTP's
	h.ReadTimeout = r.seconds("MCP_HTTP_READ_TIMEOUT_S", 60, 3600)
	h.IdleTimeout = r.seconds("MCP_HTTP_IDLE_TIMEOUT_S", 120, 3600)
	h.WriteTimeout = r.seconds("MCP_HTTP_WRITE_TIMEOUT_S", 60, 3600)

	c.AuthProvider = AuthProvider(r.choice("MCP_AUTH_PROVIDER", "none", strings.ToLower, "none", "simple_token", "jwt"))
	checkExposure(r, c)
	a := &c.Auth
	a.ClientID = "mcp-client"
	if v, ok := r.lookup("MCP_AUTH_CLIENT_ID"); ok && strings.TrimSpace(v) != "" {
		a.ClientID = strings.TrimSpace(v)
	}
	if c.AuthProvider == AuthSimpleToken {
		v, ok := r.lookup("MCP_AUTH_TOKEN")
		if !ok {
			r.fail("MCP_AUTH_TOKEN", "", "MCP_AUTH_TOKEN is required for SimpleTokenVerifier: set it in the environment of the server")
			return
		}
		if v == "" {
			r.fail("MCP_AUTH_TOKEN", "", "MCP_AUTH_TOKEN cannot be empty.")
			return
		}
		a.Token = v
	}
	// Read (and validated) whatever the provider, like every variable.
	clientIDFallback := r.boolean("MCP_AUTH_JWT_CLIENT_ID_FALLBACK", false)
	if c.AuthProvider == AuthJWT {
		a.JWT = JWT{
			ClientIDFallback: clientIDFallback,
			PublicKey:        r.text("MCP_AUTH_JWT_PUBLIC_KEY"),
			JWKSURI:          r.text("MCP_AUTH_JWT_JWKS_URI"),
			Issuer:           r.text("MCP_AUTH_JWT_ISSUER"),
			Audience:         r.text("MCP_AUTH_JWT_AUDIENCE"),
			Algorithm:        r.text("MCP_AUTH_JWT_ALGORITHM"),
			GroupsClaim:      r.text("MCP_AUTH_GROUPS_CLAIM"),
			RolesClaim:       r.text("MCP_AUTH_ROLES_CLAIM"),
		}
	}
}

// authVars are the variables of the authentication settings, by the
// field names server/auth reports them under (auth.ConfigError).
var authVars = strings.NewReplacer(
	"JWT.PublicKey", "MCP_AUTH_JWT_PUBLIC_KEY",
	"JWT.JWKSURI", "MCP_AUTH_JWT_JWKS_URI",
	"JWT.Algorithm", "MCP_AUTH_JWT_ALGORITHM",
	"Provider", "MCP_AUTH_PROVIDER",
	"Token", "MCP_AUTH_TOKEN",
)

// AuthError is the *Error of an invalid authentication setting that the
// provider found (server/auth's ConfigError: field, value, reason): the
// field and the settings its reason names become their variables, so the
// message reads as the upstream server's.
func AuthError(field, value, reason string) *Error {
	return &Error{Var: authVars.Replace(field), Value: value, Reason: authVars.Replace(reason)}
}
