// Package setup builds what a config.Config describes: the store's
// options (persist/sqlite or persist/postgres), the MCP server's options
// and the HTTP transport's authenticator (server/auth). Package config
// only reads the environment into typed values and links neither the
// server nor a driver; this package sits above both, so cmd/contextd, the
// benchmarks and programs that embed contextd build a deployment the same
// way from the same variables.
//
//	cfg, err := setup.FromEnv(os.LookupEnv)
//	if err != nil { ... } // each invalid variable is a *config.Error
//	eng, err := contextd.Open(ctx, cfg.Engine)
//	srv, err := server.New(eng, cfg.Server)
//	err = srv.ListenAndServeHTTP(ctx, cfg.HTTP)
package setup

import (
	"errors"

	"github.com/contextd/contextd/config"
	"github.com/contextd/contextd/server"
	"github.com/contextd/contextd/server/auth"
)

// Config is a config.Config with what its settings describe built. Its
// Server and HTTP are the server's types; the typed settings they were
// built from stay reachable as Config.Config.Server and Config.Config.HTTP.
type Config struct {
	config.Config
	// Server builds the MCP server (server.New).
	Server server.Options
	// HTTP serves the streamable HTTP transport with its authenticator.
	HTTP server.HTTPOptions
}

// FromEnv reads the configuration through lookup (normally os.LookupEnv,
// see config.FromEnv) and builds it. Every invalid variable is reported,
// those only the authentication provider can check (a key that does not
// parse, an unknown algorithm) included: the error is a *config.Error, or
// several joined with errors.Join.
func FromEnv(lookup func(string) (string, bool)) (Config, error) {
	c, err := config.FromEnv(lookup)
	errs := flatten(err)
	out, berr := Build(c)
	errs = append(errs, flatten(berr)...)
	switch len(errs) {
	case 0:
		return out, nil
	case 1:
		return out, errs[0]
	}
	return out, errors.Join(errs...)
}

// Build builds c: the store's options into c.Engine.Storage.Options, the
// server's options and the HTTP transport's authenticator. An error of
// the authentication settings is a *config.Error naming the variable.
func Build(c config.Config) (Config, error) {
	out := Config{Config: c}
	switch c.Engine.Storage.Backend {
	case config.BackendPostgreSQL:
		out.Engine.Storage.Options = postgresOptions(c.Planned.PostgreSQL)
	case config.BackendSQLite, "":
		out.Engine.Storage.Options = sqliteOptions(c.SQLite)
	}
	out.Server = server.Options{
		DefaultPrincipal: c.Server.DefaultPrincipal,
		DisabledTools:    c.Server.DisabledTools,
		Instructions:     c.Server.Instructions,
		MaxMessageBytes:  c.Server.MaxMessageBytes,
		Limits:           c.Server.Limits,
	}
	h := c.HTTP
	out.HTTP = server.HTTPOptions{
		Host:            h.Host,
		Port:            h.Port,
		Stateful:        h.Stateful,
		JSONResponse:    h.JSONResponse,
		ShutdownTimeout: h.ShutdownTimeout,
		MaxRequestBytes: h.MaxRequestBytes,
		ReadTimeout:     h.ReadTimeout,
		IdleTimeout:     h.IdleTimeout,
		WriteTimeout:    h.WriteTimeout,
	}
	a, err := authenticator(c)
	out.HTTP.Auth = a
	return out, err
}

// authenticator builds the HTTP authenticator of c. A simple_token
// provider without a token is already config's error, not reported
// twice.
func authenticator(c config.Config) (auth.Authenticator, error) {
	if c.AuthProvider == "" {
		c.AuthProvider = config.AuthNone
	}
	ac := auth.Config{Provider: string(c.AuthProvider), ClientID: c.Auth.ClientID, Token: c.Auth.Token}
	if c.AuthProvider == config.AuthSimpleToken && c.Auth.Token == "" {
		return nil, nil
	}
	if c.AuthProvider == config.AuthJWT {
		j := c.Auth.JWT
		ac.JWT = auth.JWTConfig{
			ClientIDFallback: j.ClientIDFallback,
			PublicKey:        j.PublicKey,
			JWKSURI:          j.JWKSURI,
			Issuer:           j.Issuer,
			Audience:         j.Audience,
			Algorithm:        j.Algorithm,
			GroupsClaim:      j.GroupsClaim,
			RolesClaim:       j.RolesClaim,
		}
	}
	a, err := auth.New(ac, c.Server.DefaultPrincipal)
	if err != nil {
		var ae *auth.ConfigError
		if errors.As(err, &ae) {
			return nil, config.AuthError(ae.Field, ae.Value, ae.Reason)
		}
		return nil, err
	}
	return a, nil
}

// flatten lists the errors of err: none, itself, or those it joins.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
