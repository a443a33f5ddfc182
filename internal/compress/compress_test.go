package compress

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
	"github.com/contextd/contextd/persist/sqlite"
	"github.com/contextd/contextd/quant"
)

func testStore(t *testing.T) persist.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(t.TempDir(), "ctx.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func codec(t testing.TB, s quant.Settings, dim int) *Codec {
	t.Helper()
	c, err := New(s, dim)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func randVec(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// TestCompress_C14: codes only by default, floats kept with KeepFloat; the
// stored payload is one TQP1 row that Record reads back to the code the
// quantizer makes, and Vector reconstructs within the 4-bit distortion.
func TestCompress_C14(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dim := 100
	v := randVec(rng, dim)
	for _, keep := range []bool{false, true} {
		c := codec(t, quant.Settings{CodesOnly: !keep}, dim)
		e := persist.Embeddings{Dim: dim, Chunks: []persist.ChunkVector{{Vector: v}}}
		if err := c.Compress(&e); err != nil {
			t.Fatal(err)
		}
		ch := e.Chunks[0]
		if (ch.Vector != nil) != keep || !strings.HasPrefix(string(ch.Code), "TQP1") {
			t.Fatalf("keep %v: vector %v, code %q", keep, ch.Vector != nil, ch.Code[:4])
		}
		rec, err := c.Record(nil, ch.Code)
		want, _ := c.Quantizer().Encode(nil, v)
		if err != nil || string(rec) != string(want) {
			t.Fatalf("record %v, %v", rec, err)
		}
		ch.Vector = nil
		back, err := c.Vector(&ch)
		if err != nil {
			t.Fatal(err)
		}
		var num, den float64
		for i := range v {
			num += float64((back[i] - v[i]) * (back[i] - v[i]))
			den += float64(v[i] * v[i])
		}
		if r := num / den; r > 0.02 || math.IsNaN(r) {
			t.Fatalf("relative reconstruction error %.4f at 4 bits", r)
		}
	}
	var off *Codec
	e := persist.Embeddings{Dim: 2, Chunks: []persist.ChunkVector{{Vector: []float32{1, 2}}}}
	if err := off.Compress(&e); err != nil || e.Chunks[0].Code != nil {
		t.Fatalf("a nil codec compressed: %v", err)
	}
	// A payload of another configuration, or of two rows, is refused.
	c4, c3 := codec(t, quant.Settings{}, dim), codec(t, quant.Settings{Bits: 3}, dim)
	e = persist.Embeddings{Dim: dim, Chunks: []persist.ChunkVector{{Vector: v}}}
	_ = c3.Compress(&e)
	if _, err := c4.Record(nil, e.Chunks[0].Code); !errors.Is(err, cerrors.ErrInvalid) {
		t.Fatalf("3-bit payload read by a 4-bit codec: %v", err)
	}
	r1, _ := c4.Quantizer().Encode(nil, v)
	two, _ := c4.Quantizer().MarshalPayload(append(r1, r1...))
	if _, err := c4.Record(nil, two); err == nil {
		t.Fatal("a two-row payload was read as one chunk")
	}
}

func store(t *testing.T, st persist.Store, n int, c *Codec, v []float32) {
	t.Helper()
	persisttest.Insert(t, st, []persist.Entry{persisttest.NewEntry(n, "t", "user", "alice")}, nil)
	e := persisttest.Embeddings(len(v), v)
	if err := c.Compress(&e); err != nil {
		t.Fatal(err)
	}
	persisttest.SetEmbeddings(t, st, persisttest.ID(n), e)
}

// TestCheck_C14: the start-up check bootstraps the provenance of an empty
// database, accepts a matching one, and refuses every mismatch C.14 lists
// with ErrCompressionChanged naming the migration.
func TestCheck_C14(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	c := codec(t, quant.Settings{}, 8)

	st := testStore(t)
	if err := Check(ctx, st, c); err != nil {
		t.Fatalf("empty database: %v", err)
	}
	if p, ok, _ := st.Compression(ctx); !ok || !Same(p, c.Provenance()) || p.Provider != "turboquant" || len(p.Fingerprint) != 64 {
		t.Fatalf("bootstrapped provenance %+v %v", p, ok)
	}
	store(t, st, 1, c, randVec(rng, 8))
	if err := Check(ctx, st, c); err != nil {
		t.Fatalf("matching database: %v", err)
	}
	mismatch := func(name string, st persist.Store, c *Codec, command string) {
		t.Helper()
		err := Check(ctx, st, c)
		if !errors.Is(err, cerrors.ErrCompressionChanged) || !strings.Contains(err.Error(), "`"+command+"`") {
			t.Fatalf("%s: %v", name, err)
		}
	}
	mismatch("other bits", st, codec(t, quant.Settings{Bits: 3}, 8), CompressCommand)
	mismatch("other seed", st, codec(t, quant.Settings{Seed: 1}, 8), CompressCommand)
	mismatch("other variant", st, codec(t, quant.Settings{Variant: quant.IP}, 8), CompressCommand)
	mismatch("compression off", st, nil, DecompressCommand)

	// Float32 vectors (compression off before): enabling it is refused,
	// keeping it off is fine and records nothing.
	fp := testStore(t)
	store(t, fp, 1, nil, randVec(rng, 8))
	if err := Check(ctx, fp, nil); err != nil {
		t.Fatalf("float32 database, compression off: %v", err)
	}
	mismatch("enabled over float32", fp, c, CompressCommand)
	if _, ok, _ := fp.Compression(ctx); ok {
		t.Fatal("a refused check recorded provenance")
	}
	// Codes without provenance (a migration cut short) are refused too.
	bare := testStore(t)
	store(t, bare, 1, c, randVec(rng, 8))
	mismatch("codes without provenance", bare, c, CompressCommand)
}
