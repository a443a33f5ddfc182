package sqlval

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/contextd/contextd/persist"
)

func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		in   any
		kind int
		v    any
	}{
		{nil, KindNone, nil}, {"x", KindString, "x"}, {true, KindBool, true}, {3, KindNumber, int64(3)},
		{json.Number("7"), KindNumber, int64(7)}, {json.Number("1.5"), KindNumber, 1.5}, {float32(2), KindNumber, 2.0},
	} {
		k, v, err := KindOf(tc.in)
		if err != nil || k != tc.kind || v != tc.v {
			t.Errorf("KindOf(%#v) = %d %#v %v", tc.in, k, v, err)
		}
	}
	for _, bad := range []any{math.NaN(), math.Inf(1), json.Number("x"), []int{1}} {
		if _, _, err := KindOf(bad); err == nil {
			t.Errorf("KindOf(%#v) accepted", bad)
		}
	}
}

func TestASCIILower(t *testing.T) {
	if got := ASCIILower("ÀbC-Ö"); got != "Àbc-Ö" {
		t.Fatalf("got %q", got)
	}
}

func TestVectorRoundTrip(t *testing.T) {
	v := []float32{1, -2.5, float32(math.SmallestNonzeroFloat32)}
	got, err := DecodeVector(EncodeVector(v))
	if err != nil || !slices.Equal(got, v) {
		t.Fatalf("round trip %v, %v", got, err)
	}
	if _, err := DecodeVector([]byte{1, 2, 3}); err == nil {
		t.Fatal("3-byte vector accepted")
	}
}

func TestValidateEmbeddings(t *testing.T) {
	ok := persist.Embeddings{Dim: 2, Chunks: []persist.ChunkVector{{Vector: []float32{1, 2}}, {Code: []byte("c")}}}
	if err := ValidateEmbeddings(ok); err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]persist.Embeddings{
		"dim":     {Dim: 0},
		"neither": {Dim: 2, Chunks: []persist.ChunkVector{{}}},
		"length":  {Dim: 2, Chunks: []persist.ChunkVector{{Vector: []float32{1}}}},
		"nan":     {Dim: 1, Chunks: []persist.ChunkVector{{Vector: []float32{float32(math.NaN())}}}},
		"span":    {Dim: 1, Chunks: []persist.ChunkVector{{Vector: []float32{1}, Start: 5, End: 2}}},
	} {
		if err := ValidateEmbeddings(e); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// FuzzDecodeVector: any blob either decodes to len/4 values that encode
// back to the same bytes, or is refused.
func FuzzDecodeVector(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63})
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeVector(b)
		if err != nil {
			if len(b)%4 == 0 {
				t.Fatalf("refused %d bytes: %v", len(b), err)
			}
			return
		}
		if len(v) != len(b)/4 || string(EncodeVector(v)) != string(b) {
			t.Fatalf("round trip of %x changed it", b)
		}
	})
}

func TestCheckCompression(t *testing.T) {
	good := persist.Compression{Provider: "turboquant", Bits: 4, Variant: "mse", Dim: 100, Fingerprint: "ab"}
	if err := CheckCompression(&good); err != nil {
		t.Fatal(err)
	}
	bad := good
	bad.Variant = "x"
	if err := CheckCompression(&bad); err == nil {
		t.Fatal("bad variant accepted")
	}
}
