package config

import (
	"net"
	"net/url"
	"strconv"
)

// URL is the connection string of the validated POSTGRESQL_* settings: a
// POSTGRESQL_CONNECTION_STRING overrides the parts (host, port, user,
// password, database, SSL mode). The pool, timeout, keepalive and
// statement-cache settings apply either way; server/setup passes them to
// persist/postgres.
func (g PostgreSQL) URL() string {
	if g.ConnectionString != "" {
		return g.ConnectionString
	}
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(g.User, g.Password),
		Host:     net.JoinHostPort(g.Host, strconv.Itoa(g.Port)),
		Path:     "/" + g.Database,
		RawQuery: url.Values{"sslmode": {g.SSLMode}}.Encode(),
	}
	return u.String()
}
