// Package persisttest owns the one suite of storage behaviours every
// persist.Store implementation runs: the access predicates on every read,
// grants, the change log (one row per mutated entry, seq gap-free and in
// commit order under concurrent writers, visible only once committed),
// conflict detection of updates, ids and chunk keys never reused, vectors,
// node summaries, and the database's own search engines when Store.Native
// reports them. It is written only against the persist interfaces, as
// pebble's vfstest is against vfs.FS, so SQLite and PostgreSQL are held to
// the same contract; what only one backend has (pragmas, migrations, its
// query syntax, its search strategies) is tested in that backend's package.
//
// A backend runs it from one test, handing it a fresh, empty store per
// call; the suite closes each store when its test ends:
//
//	func TestPersistSuite(t *testing.T) {
//		persisttest.Run(t, func(t *testing.T) persist.Store {
//			st, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(t.TempDir(), "ctx.db")})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return st
//		})
//	}
//
// Subtests are named Group/Behaviour (Access/Reads, ChangeLog/ConcurrentWriters,
// NativeVectors/Oracle, ...), so `go test -run 'TestPersistSuite/.*/Access'`
// runs one group. Native subtests skip with a message when the backend has
// no such engine.
package persisttest
