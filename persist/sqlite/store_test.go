package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

func TestMigrationsIdempotent(t *testing.T) {
	ctx := context.Background()
	path := tempDB(t)
	for i := 0; i < 3; i++ {
		s, err := Open(ctx, Options{Path: path})
		if err != nil {
			t.Fatalf("open #%d: %v", i, err)
		}
		var n, max int64
		if err := s.w.QueryRowContext(ctx, `SELECT count(*), max(version) FROM schema_migrations`).Scan(&n, &max); err != nil {
			t.Fatalf("read schema_migrations: %v", err)
		}
		ms, err := migrations()
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(len(ms)) || max != ms[len(ms)-1].Version {
			t.Fatalf("open #%d: %d migrations up to %d, want %d up to %d", i, n, max, len(ms), ms[len(ms)-1].Version)
		}
		if i == 0 {
			e := entry(1, "t", "user", "alice")
			insert(t, s, []persist.Entry{e}, nil)
		}
		got, err := s.Get(ctx, persist.Access{Principal: "alice"}, []string{tid(1)}, persist.GetOptions{})
		if err != nil || len(got) != 1 {
			t.Fatalf("open #%d: get = %v, %v", i, len(got), err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := tempDB(t)
	s := openFile(t, path)
	if _, err := s.w.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (9999, 0)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(ctx, Options{Path: path}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("open of a newer schema: err = %v", err)
	}
}

func TestOptions(t *testing.T) {
	ctx := context.Background()
	bad := []struct {
		name, option string
		o            Options
	}{
		{"journal", "JournalMode", Options{JournalMode: "fast"}},
		{"sync", "Synchronous", Options{Synchronous: "sometimes"}},
		{"temp", "TempStore", Options{TempStore: "disk"}},
		{"mmap", "MmapSize", Options{MmapSize: -1}},
		{"page", "PageSize", Options{PageSize: 1000}},
		{"wal", "WALAutocheckpoint", Options{WALAutocheckpoint: -5}},
		{"busy", "BusyTimeout", Options{BusyTimeout: -time.Second}},
		{"readers", "MaxReaders", Options{MaxReaders: -1}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Path = ":memory:"
			_, err := Open(ctx, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.option) {
				t.Fatalf("err = %v, want one naming %s", err, tc.option)
			}
		})
	}
	if _, err := Open(ctx, Options{}); err == nil {
		t.Fatalf("empty path accepted")
	}

	// Defaults and explicit values reach every connection.
	fk := false
	pragmas := []struct {
		name string
		o    Options
		want map[string]string
	}{
		{"defaults", Options{}, map[string]string{"journal_mode": "wal", "synchronous": "1", "temp_store": "2",
			"mmap_size": "268435456", "cache_size": "-64000", "page_size": "4096",
			"wal_autocheckpoint": "1000", "busy_timeout": "10000", "foreign_keys": "1"}},
		{"explicit", Options{JournalMode: "delete", Synchronous: "full", TempStore: "file", MmapSize: 4096,
			CacheSize: -2000, PageSize: 8192, WALAutocheckpoint: 50, BusyTimeout: 1500 * time.Millisecond, ForeignKeys: &fk},
			map[string]string{"journal_mode": "delete", "synchronous": "2", "temp_store": "1",
				"mmap_size": "4096", "cache_size": "-2000", "page_size": "8192",
				"wal_autocheckpoint": "50", "busy_timeout": "1500", "foreign_keys": "0"}},
	}
	for _, tc := range pragmas {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Path = tempDB(t)
			s := openFile(t, tc.o.Path)
			s.Close()
			s, err := Open(ctx, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if tc.name == "explicit" { // page_size only applies to a new database
				s.Close()
				tc.o.Path = tempDB(t)
				if s, err = Open(ctx, tc.o); err != nil {
					t.Fatal(err)
				}
				defer s.Close()
			}
			for name, want := range tc.want {
				for _, db := range []querier{s.w, s.r} {
					var got string
					if err := db.QueryRowContext(ctx, "PRAGMA "+name).Scan(&got); err != nil {
						t.Fatalf("pragma %s: %v", name, err)
					}
					if got != want {
						t.Fatalf("pragma %s = %s, want %s", name, got, want)
					}
				}
			}
		})
	}
}

func TestMemoryStoresArePrivate(t *testing.T) {
	a, b := openMem(t), openMem(t)
	insert(t, a, []persist.Entry{entry(1, "t", "user", "alice")}, nil)
	if got := readable(t, a); got != 1 {
		t.Fatalf("store a sees %d entries, want 1", got)
	}
	if got := readable(t, b); got != 0 {
		t.Fatalf("store b sees %d entries, want 0", got)
	}
	st, err := a.Stats(context.Background(), alice)
	if err != nil || st.DBSizeBytes != -1 {
		t.Fatalf("memory stats size = %d, %v; want -1", st.DBSizeBytes, err)
	}
}

func TestFileSize(t *testing.T) {
	s := openFile(t, tempDB(t))
	insert(t, s, []persist.Entry{entry(1, "t", "user", "alice")}, nil)
	st, err := s.Stats(context.Background(), alice)
	if err != nil || st.DBSizeBytes <= 0 {
		t.Fatalf("file stats size = %d, %v", st.DBSizeBytes, err)
	}
}

// TestDeleteRemovesChildRows: a delete leaves no row of the entry in any
// table, with foreign keys on (ON DELETE CASCADE) and off (the store and
// the triggers of migrations 0003 and 0005 remove them), and the sqlite-vec
// table of native vector search follows every write of the vectors.
func TestDeleteRemovesChildRows(t *testing.T) {
	for _, fk := range []bool{true, false} {
		t.Run(fmt.Sprintf("fk=%v", fk), func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, Options{Path: tempDB(t), ForeignKeys: &fk})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			setNative(t, s, true, 2)
			e := entry(1, "t", "user", "alice")
			e.Tags = []string{"x"}
			e.ContentType = "multimodal"
			e.Images = []persist.Image{{Data: []byte{1}, MimeType: "image/png"}}
			insert(t, s, []persist.Entry{e, entry(2, "t", "user", "alice")}, map[string][]persist.Grant{
				tid(1): {{PrincipalType: "user", PrincipalID: "bob", Permission: "read", GrantedBy: "alice"}}})
			err = s.Write(ctx, func(tx persist.Tx) error {
				for _, id := range nums(1, 2) {
					if err := tx.SetEmbeddings(ctx, id, embs(2, []float32{1, 0}, []float32{0, 1})); err != nil {
						return err
					}
					if err := tx.ReplaceNodeSummaries(ctx, id, []persist.NodeSummary{{NodeID: "x", End: 3, Summary: "s"}}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			checkVecSync(t, s)
			// Replacing and clearing vectors keeps the sqlite-vec table in step.
			setEmb(t, s, tid(2), embs(2, []float32{2, 2}, []float32{3, 3}, []float32{4, 4}))
			checkVecSync(t, s)
			setEmb(t, s, tid(2), persist.Embeddings{})
			checkVecSync(t, s)
			if c := count(t, s, "embedding_metadata", tid(2)); c != 0 {
				t.Fatalf("metadata rows left after clearing: %d", c)
			}
			setEmb(t, s, tid(2), embs(2, []float32{5, 5}, []float32{6, 6}))
			if err := s.Write(ctx, func(tx persist.Tx) error {
				n, err := tx.Delete(ctx, []string{tid(1)})
				if err == nil && n != 1 {
					err = fmt.Errorf("deleted %d", n)
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			tables := []string{"tags", "image_attachments", "context_entry_grants", "embedding_chunks", "embedding_metadata", "context_index_nodes"}
			for _, table := range tables {
				if c := count(t, s, table, tid(1)); c != 0 {
					t.Fatalf("%s rows left after delete: %d", table, c)
				}
			}
			checkVecSync(t, s)
			if c := count(t, s, "embedding_chunks", tid(2)); c != 2 {
				t.Fatalf("the other entry's chunks: %d", c)
			}
			if n, _ := s.EmbeddingBytes(ctx); n != 2*2*4 {
				t.Fatalf("bytes after delete = %d", n)
			}
		})
	}
}
