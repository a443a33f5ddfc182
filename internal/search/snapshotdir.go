package search

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
)

// SnapshotPrefix is where the in-process indexes of a store keep their
// snapshots when the configuration names no place: beside a database
// file (path), or, for a server database (url), in ~/.mcp/contextd-index
// under a name made from the url's SHA-256 (the url may hold a
// password). "" for an in-memory database, or when that folder cannot
// be made: the indexes are then rebuilt at each start, as they were for
// every PostgreSQL store before (14.6 s at 100,000 entries). Every
// snapshot carries a mark of the change log it was saved from, so one of
// another database, or of an earlier state of a restored one, is
// rebuilt (snapfmt.Mark); processes on one machine share the folder as
// they share a SQLite file's.
//
// options are the store's backend options: when they name a part of the
// database (PostgreSQL's schema, through an Identity method), it is part
// of the name too.
func SnapshotPrefix(path, url string, options any) string {
	switch {
	case path == ":memory:":
		return ""
	case path != "":
		return path
	case url == "":
		return ""
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	if id, ok := options.(interface{ Identity() string }); ok {
		url += "\x00" + id.Identity()
	}
	sum := sha256.Sum256([]byte(url))
	dir := filepath.Join(home, ".mcp", "contextd-index", "db-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	return filepath.Join(dir, "store")
}
