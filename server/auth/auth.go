// Package auth owns the HTTP authentication of the contextd MCP server: it
// turns the bearer token of a request into the contextd.Principal every
// tool call runs as, under one of three providers, and guards an
// http.Handler so that only authenticated requests reach it.
//
//   - none: every caller is the default principal (no token needed).
//   - simple_token: one shared token; every caller is the default principal.
//   - jwt: a signed token verified with a static key or the keys of a JWKS
//     endpoint; the principal is its subject, with groups and roles read
//     from configurable claims.
//
// For example:
//
//	a, err := auth.New(auth.Config{Provider: "jwt", JWT: auth.JWTConfig{
//		JWKSURI:  "https://idp.example.com/.well-known/jwks.json",
//		Issuer:   "https://idp.example.com/",
//		Audience: "contextd",
//	}}, "local")
//	if err != nil { ... } // a *auth.ConfigError naming the setting
//	mux.Handle("/mcp", auth.Require(a, logger, mcpHandler))
//
// The settings mirror the MCP_AUTH_* environment variables of the upstream
// server; package config reads them, and names them in its messages
// (config.AuthError turns a ConfigError into the variable's error).
package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/contextd/contextd"
)

// Authenticator verifies the bearer token of one HTTP request (token is ""
// when the request carries none) and returns the caller. An error means
// HTTP 401: the request never reaches a tool.
type Authenticator func(ctx context.Context, token string) (contextd.Principal, error)

// Config selects and configures the provider (MCP_AUTH_*). The zero value
// is provider "none".
type Config struct {
	// Provider is "none" (default), "simple_token" or "jwt".
	Provider string
	// Token is the shared bearer token of simple_token (MCP_AUTH_TOKEN).
	Token string
	// ClientID names simple_token callers (MCP_AUTH_CLIENT_ID, default
	// mcp-client). It is read for compatibility; callers still run as the
	// default principal.
	ClientID string
	// JWT configures the jwt provider.
	JWT JWTConfig
}

// ConfigError reports an invalid setting of Config by its field: Provider,
// Token, JWT.Algorithm, JWT.PublicKey or JWT.JWKSURI. The Reason names
// settings the same way, so package config can name its variables
// instead. Value is "(redacted)" for key material.
type ConfigError struct {
	Field  string // the setting
	Value  string // its value
	Reason string // what is wrong, with the accepted values
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("auth: invalid %s %q: %s", e.Field, e.Value, e.Reason)
}

// Rejection is an authentication failure whose Reason is safe to show the
// caller: it describes the token's shape, never key material or a
// library's text. Require puts it in the 401 body's error_description.
type Rejection struct{ Reason string }

func (e *Rejection) Error() string { return e.Reason }

// errUnauthenticated is the error of a request without credentials.
var errUnauthenticated = errors.New("missing bearer token")

// New builds the authenticator of cfg. Under none and simple_token every
// caller is defaultPrincipal with no groups and no roles, so a
// configured publish role can never be met there. A misconfiguration is a
// *ConfigError.
func New(cfg Config, defaultPrincipal string) (Authenticator, error) {
	local := contextd.Principal{ID: defaultPrincipal}
	switch cfg.Provider {
	case "", "none":
		return func(context.Context, string) (contextd.Principal, error) { return local, nil }, nil
	case "simple_token":
		if cfg.Token == "" {
			return nil, &ConfigError{Field: "Token", Reason: "Token cannot be empty."}
		}
		want := []byte(cfg.Token)
		return func(_ context.Context, token string) (contextd.Principal, error) {
			if token == "" {
				return contextd.Principal{}, errUnauthenticated
			}
			// ConstantTimeCompare leaks only the length, never where the
			// first difference is.
			if subtle.ConstantTimeCompare([]byte(token), want) != 1 {
				return contextd.Principal{}, errors.New("invalid token")
			}
			return local, nil
		}, nil
	case "jwt":
		v, err := newJWTVerifier(cfg.JWT)
		if err != nil {
			return nil, err
		}
		return v.authenticate, nil
	}
	return nil, &ConfigError{Field: "Provider", Value: cfg.Provider, Reason: "must be one of none, simple_token, jwt"}
}

// bearer extracts the token of an Authorization: Bearer header; ok is
// false when the header is present but is not a bearer credential.
func bearer(r *http.Request) (token string, ok bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", true
	}
	scheme, rest, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(rest)
	return token, token != ""
}

// Require wraps next so that only requests auth accepts reach it, carrying
// their principal in the request context (contextd.PrincipalFrom).
// Failures get 401 with a WWW-Authenticate challenge (RFC 6750) and a small
// JSON body; log (nil discards) receives why at debug level.
func Require(auth Authenticator, log *slog.Logger, next http.Handler) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearer(r)
		var (
			p   contextd.Principal
			err error
		)
		if !ok {
			err = errors.New("malformed Authorization header: want Bearer <token>")
		} else {
			p, err = auth(r.Context(), token)
		}
		if err == nil && p.ID == "" {
			err = errors.New("token names no principal")
		}
		if err != nil {
			log.Debug("unauthenticated request", "remote", r.RemoteAddr, "error", err)
			challenge := `Bearer realm="mcp"`
			desc := "authentication required"
			var rej *Rejection
			switch {
			case errors.Is(err, errUnauthenticated):
			case errors.As(err, &rej):
				challenge += `, error="invalid_token"`
				desc = rej.Reason
			default:
				challenge += `, error="invalid_token"`
				desc = "invalid token"
			}
			w.Header().Set("WWW-Authenticate", challenge)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":"invalid_token","error_description":%q}`, desc)
			return
		}
		next.ServeHTTP(w, r.WithContext(contextd.WithPrincipal(r.Context(), p)))
	})
}
