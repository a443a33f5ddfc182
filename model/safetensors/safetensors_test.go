package safetensors

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
)

// entry is one tensor for build: its header fields and raw bytes.
type entry struct {
	name  string
	dtype string
	shape []int
	raw   []byte
}

// build writes a well-formed file the way the reference writer does:
// tensors laid out in order, offsets contiguous from 0.
func build(t testing.TB, meta map[string]string, es ...entry) []byte {
	t.Helper()
	hdr := map[string]any{}
	if meta != nil {
		hdr["__metadata__"] = meta
	}
	var data []byte
	for _, e := range es {
		hdr[e.name] = map[string]any{"dtype": e.dtype, "shape": e.shape,
			"data_offsets": []int{len(data), len(data) + len(e.raw)}}
		data = append(data, e.raw...)
	}
	h, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	return assemble(string(h), data)
}

// assemble prefixes a header text with its length and appends data.
func assemble(hdr string, data []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
	out = append(out, hdr...)
	return append(out, data...)
}

func f32s(v ...float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func u16s(v ...uint16) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint16(b, x)
	}
	return b
}

func TestReadsEveryFloatDtype(t *testing.T) {
	var f64 []byte
	for _, x := range []float64{0.5, -3.25} {
		f64 = binary.LittleEndian.AppendUint64(f64, math.Float64bits(x))
	}
	i64 := binary.LittleEndian.AppendUint64(nil, uint64(math.MaxUint64)) // -1
	i64 = binary.LittleEndian.AppendUint64(i64, 511)
	data := build(t, map[string]string{"format": "pt"},
		entry{"w", "F32", []int{2, 3}, f32s(1, 2, 3, -4, 5.5, 1e-30)},
		// 1.0, -2.0, 65504 (largest half), 2^-24 (smallest subnormal)
		entry{"h", "F16", []int{4}, u16s(0x3c00, 0xc000, 0x7bff, 0x0001)},
		// bf16 is the high half of float32: 1.0, -0.5, 3.140625
		entry{"b", "BF16", []int{3}, u16s(0x3f80, 0xbf00, 0x4049)},
		entry{"d", "F64", []int{2}, f64},
		entry{"ids", "I64", []int{1, 2}, i64},
		entry{"s", "F32", []int{}, f32s(7)},
		entry{"empty", "F32", []int{0, 4}, nil},
	)
	f, err := Read("t.safetensors", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Names(), ","); got != "b,d,empty,h,ids,s,w" {
		t.Errorf("names %s", got)
	}
	if f.Metadata()["format"] != "pt" {
		t.Errorf("metadata %v", f.Metadata())
	}
	want := map[string]Tensor{
		"w":     {[]int{2, 3}, []float32{1, 2, 3, -4, 5.5, 1e-30}},
		"h":     {[]int{4}, []float32{1, -2, 65504, float32(math.Ldexp(1, -24))}},
		"b":     {[]int{3}, []float32{1, -0.5, 3.140625}},
		"d":     {[]int{2}, []float32{0.5, -3.25}},
		"ids":   {[]int{1, 2}, []float32{-1, 511}},
		"s":     {[]int{}, []float32{7}},
		"empty": {[]int{0, 4}, []float32{}},
	}
	for name, w := range want {
		got, err := f.Tensor(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !equalInts(got.Shape, w.Shape) || len(got.Data) != len(w.Data) {
			t.Fatalf("%s: shape %v len %d, want %v len %d", name, got.Shape, len(got.Data), w.Shape, len(w.Data))
		}
		for i := range w.Data {
			if got.Data[i] != w.Data[i] {
				t.Errorf("%s[%d] = %g, want %g", name, i, got.Data[i], w.Data[i])
			}
		}
	}
	if _, err := f.Tensor("missing"); !errors.Is(err, cerrors.ErrNotFound) {
		t.Errorf("missing tensor: %v", err)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestHalfExhaustive checks all 65,536 halves against the definition
// evaluated in float64: (-1)^s * frac * 2^-24 for subnormals,
// (-1)^s * (1024+frac) * 2^(exp-25) for normals.
func TestHalfExhaustive(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		s, exp, frac := h>>15, (h>>10)&0x1f, h&0x3ff
		got := HalfToFloat32(uint16(h))
		var want float64
		switch {
		case exp == 0x1f && frac == 0:
			want = math.Inf(1)
		case exp == 0x1f:
			if !math.IsNaN(float64(got)) {
				t.Fatalf("%#04x: %g, want NaN", h, got)
			}
			continue
		case exp == 0:
			want = math.Ldexp(float64(frac), -24)
		default:
			want = math.Ldexp(float64(1024+frac), exp-25)
		}
		if s == 1 {
			want = -want
		}
		if float64(got) != want || math.Signbit(float64(got)) != (s == 1) {
			t.Fatalf("%#04x: %g, want %g", h, got, want)
		}
	}
}

func TestOpenFromDisk(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.safetensors")
	if err := os.WriteFile(p, build(t, nil, entry{"x", "F32", []int{1}, f32s(2.5)}), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	x, err := f.Tensor("x")
	if err != nil || x.Data[0] != 2.5 {
		t.Fatalf("%v %v", x, err)
	}
	if info, ok := f.Info("x"); !ok || info.DType != "F32" || info.End != 4 {
		t.Errorf("info %+v", info)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent file: %v", err)
	}
}

func TestUnconvertibleDtype(t *testing.T) {
	f, err := Read("t", build(t, nil, entry{"mask", "BOOL", []int{2}, []byte{1, 0}}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Tensor("mask"); !errors.Is(err, cerrors.ErrUnsupported) || !strings.Contains(err.Error(), "BOOL") {
		t.Errorf("BOOL tensor: %v", err)
	}
}

// TestMalformed: each file breaks one rule and is refused with
// ErrMalformed and a message naming the rule.
func TestMalformed(t *testing.T) {
	good := `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`
	eight := make([]byte, 8)
	huge := binary.LittleEndian.AppendUint64(nil, MaxHeader+1)
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"short file", []byte{1, 2, 3}, "shorter than the 8-byte"},
		{"header past end", binary.LittleEndian.AppendUint64(nil, 50), "exceeds the 0 bytes"},
		{"huge header", append(huge, "{}"...), "exceeds the limit"},
		{"length wraps int64", binary.LittleEndian.AppendUint64(nil, math.MaxUint64), "exceeds the limit"},
		{"empty header", assemble("", nil), "too short"},
		{"not an object", assemble(`[1, 2]`, nil), "does not start with '{'"},
		{"truncated JSON", assemble(`{"a":{"dtype":"F32"`, nil), "entry is not"},
		{"trailing garbage", assemble(good+"x", eight), "after its JSON object"},
		{"unknown dtype", assemble(`{"a":{"dtype":"F17","shape":[2],"data_offsets":[0,8]}}`, eight), "unknown dtype"},
		{"negative dim", assemble(`{"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`, eight), "not a list of dimensions"},
		{"fractional dim", assemble(`{"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}}`, eight), "not a list of dimensions"},
		{"overflowing shape", assemble(`{"a":{"dtype":"F32","shape":[2147483647,2147483647,2147483647],"data_offsets":[0,8]}}`, eight), "too large"},
		{"size mismatch", assemble(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, eight), "needs 12 bytes"},
		{"reversed offsets", assemble(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`, eight), "not an ordered byte range"},
		{"three offsets", assemble(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8,9]}}`, eight), "must be [begin, end]"},
		{"past the end", assemble(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, eight), "run past"},
		{"gap", assemble(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, eight), "leave bytes 0 to 4 unused"},
		{"overlap", assemble(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, eight), "overlap"},
		{"left over", assemble(good, make([]byte, 12)), "cover 8 of the 12 bytes"},
		{"duplicate", assemble(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, eight), "twice"},
		{"bad metadata", assemble(`{"__metadata__":{"k":1}}`, nil), "__metadata__"},
		{"entry not object", assemble(`{"a":7}`, nil), "entry is not"},
	}
	for _, c := range cases {
		_, err := Read("bad.safetensors", c.data)
		if !errors.Is(err, cerrors.ErrMalformed) || !strings.Contains(err.Error(), c.want) ||
			!strings.Contains(err.Error(), "bad.safetensors") {
			t.Errorf("%s: %v, want ErrMalformed naming the file and %q", c.name, err, c.want)
		}
	}
	// The reference pads headers with spaces; that is not garbage.
	if _, err := Read("padded", assemble(good+"    ", eight)); err != nil {
		t.Errorf("padded header: %v", err)
	}
}

// FuzzSafetensors: any bytes either fail to open with ErrMalformed or
// open into tensors whose data matches their shape and whose reads never
// panic.
func FuzzSafetensors(f *testing.F) {
	f.Add(build(f, map[string]string{"format": "pt"},
		entry{"w", "F32", []int{2, 2}, f32s(1, 2, 3, 4)},
		entry{"h", "F16", []int{2}, u16s(0x3c00, 0x7c00)},
		entry{"b", "BF16", []int{1, 1}, u16s(0x3f80)}))
	f.Add(build(f, nil, entry{"m", "BOOL", []int{3}, []byte{1, 0, 1}}, entry{"e", "F32", []int{0}, nil}))
	f.Add(assemble(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, make([]byte, 8)))
	f.Add(assemble(`{"a":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}}  `, make([]byte, 8)))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, '{', '}'})
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read("fuzz", data)
		if err != nil {
			if !errors.Is(err, cerrors.ErrMalformed) {
				t.Fatalf("error without ErrMalformed: %v", err)
			}
			return
		}
		for _, n := range file.Names() {
			info, _ := file.Info(n)
			if info.End > int64(len(data)) {
				t.Fatalf("%s: range past the file", n)
			}
			tn, err := file.Tensor(n)
			if err != nil {
				if !errors.Is(err, cerrors.ErrUnsupported) {
					t.Fatalf("%s: %v", n, err)
				}
				continue
			}
			if len(tn.Data) != info.Elements() {
				t.Fatalf("%s: %d values for shape %v", n, len(tn.Data), tn.Shape)
			}
		}
	})
}
