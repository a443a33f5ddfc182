package snapfmt

import (
	"encoding/binary"
	"testing"
)

func TestFraming(t *testing.T) {
	buf := append([]byte("junk"), "CXTEST01"...)
	buf = binary.AppendUvarint(buf, 3)
	buf = append(buf, "abc"...)
	buf = binary.AppendVarint(buf, -7)
	buf = Seal(buf, 4)[4:]
	body, err := Open(buf, "CXTEST01")
	if err != nil {
		t.Fatal(err)
	}
	r := &Reader{B: body}
	if s, v := string(r.Bytes(r.Count(1))), r.Int32(); r.Err != nil || s != "abc" || v != -7 || len(r.B) != 0 {
		t.Fatalf("read %q %d, %v, %d left", s, v, r.Err, len(r.B))
	}
	for i := range buf {
		bad := append([]byte(nil), buf...)
		bad[i] ^= 1
		if _, err := Open(bad, "CXTEST01"); err == nil {
			t.Fatalf("byte %d flipped: accepted", i)
		}
	}
	if _, err := Open(Reseal(append([]byte("CXTEST02"), 1, 2, 3, 4)), "CXTEST01"); err == nil {
		t.Fatal("another magic accepted")
	}
	// A count the data cannot hold, a truncated varint: the first error sticks.
	r = &Reader{B: binary.AppendUvarint(nil, 1000)}
	if n := r.Count(1); n != 0 || r.Err == nil {
		t.Fatalf("lying count: %d, %v", n, r.Err)
	}
	first := r.Err
	if r.Uvarint(); r.Err != first {
		t.Fatal("a later read replaced the first error")
	}
	r = &Reader{B: []byte{0x80}}
	if r.Uvarint(); r.Err == nil {
		t.Fatal("truncated varint accepted")
	}
	r = &Reader{B: binary.AppendVarint(nil, 1<<40)}
	if r.Int32(); r.Err == nil {
		t.Fatal("out-of-range int32 accepted")
	}
}
