package sqlstore

import (
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Migration is one embedded schema step of a store, named
// NNNN_description.sql.
type Migration struct {
	Version int64
	Name    string
	SQL     string
}

// Migrations returns the migrations/*.sql files of fsys in version order,
// refusing a name that is not NNNN_description.sql, a version that is not
// positive and two files of one version. Errors are the dialect's.
func Migrations(d Dialect, fsys fs.FS) ([]Migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, d.Errf("list migrations: %w", err)
	}
	out := make([]Migration, 0, len(names))
	seen := map[int64]string{}
	for _, n := range names {
		base := path.Base(n)
		num, _, ok := strings.Cut(base, "_")
		if !ok {
			return nil, d.Errf("migration %s: name is not NNNN_description.sql", base)
		}
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil || v <= 0 {
			return nil, d.Errf("migration %s: bad version %q", base, num)
		}
		if prev, dup := seen[v]; dup {
			return nil, d.Errf("migrations %s and %s share version %d", prev, base, v)
		}
		seen[v] = base
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, d.Errf("read migration %s: %w", base, err)
		}
		out = append(out, Migration{Version: v, Name: base, SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}
