package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/config"
	"github.com/contextd/contextd/persist/postgres"
)

// dbTarget names the database a configuration opens, for messages: the
// SQLite file, or PostgreSQL's host, port, database and schema (never the
// user name or password).
func dbTarget(ec contextd.Config) string {
	if ec.Storage.Backend != postgres.Backend {
		return ec.DBPath
	}
	target := "postgresql (POSTGRESQL_CONNECTION_STRING)"
	if u, err := url.Parse(ec.Storage.URL); err == nil && u.Host != "" {
		target = "postgresql://" + u.Host + u.EscapedPath()
	}
	if o, ok := ec.Storage.Options.(postgres.Options); ok && o.Schema != "" && o.Schema != "public" {
		target += " (schema " + o.Schema + ")"
	}
	return target
}

// openFailure describes a failure to open the database, naming it, and
// says how the command exits: 78 for a configuration problem (an invalid
// variable, a model or compression that differs from the stored one, a
// PostgreSQL server that cannot be reached with the configured settings,
// with the cause), 1 for anything else.
func openFailure(ec contextd.Config, err error) (string, int) {
	target := dbTarget(ec)
	if ec.Storage.Backend == postgres.Backend && errors.Is(err, cerrors.ErrUnavailable) {
		return fmt.Sprintf("database %s: cannot connect: %s; check POSTGRESQL_CONNECTION_STRING, or POSTGRESQL_HOST, POSTGRESQL_PORT, POSTGRESQL_USER, POSTGRESQL_PASSWORD and POSTGRESQL_DATABASE",
			target, connectCause(err)), exitConfig
	}
	msg := config.StoreOptionVariables(err.Error())
	if !strings.Contains(msg, target) {
		msg = fmt.Sprintf("database %s: %s", target, msg)
	}
	var ce *config.Error
	if errors.As(err, &ce) || errors.Is(err, contextd.ErrEmbeddingModelChanged) || errors.Is(err, contextd.ErrCompressionChanged) {
		return msg, exitConfig
	}
	return msg, exitFail
}

// connectCause is why a connection failed, for the operator: the network
// error (refused, no such host, timed out) when there is one, else the
// store's own words. The store keeps the driver's error out of err's
// message (clients never see it) and hands it out through Cause.
func connectCause(err error) string {
	var c interface{ Cause() error }
	if !errors.As(err, &c) || c.Cause() == nil {
		return err.Error()
	}
	cause := c.Cause()
	var op *net.OpError
	if errors.As(cause, &op) {
		return op.Error()
	}
	var dns *net.DNSError
	if errors.As(cause, &dns) {
		return dns.Error()
	}
	if msg := cause.Error(); !strings.Contains(msg, "password=") {
		return msg
	}
	return err.Error()
}
