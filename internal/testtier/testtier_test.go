package testtier

import "testing"

func TestEnabled(t *testing.T) {
	for _, c := range []struct {
		v       string
		on, err bool
	}{
		{"", false, false},
		{"1", true, false},
		{"true", true, false},
		{"0", false, false},
		{"false", false, false},
		{"yes", false, true},
	} {
		t.Setenv(Env, c.v)
		on, err := Enabled()
		if on != c.on || (err != nil) != c.err {
			t.Errorf("%s=%q: Enabled() = %v, %v; want %v, error %v", Env, c.v, on, err, c.on, c.err)
		}
	}
}

func TestShare(t *testing.T) {
	for _, c := range []struct {
		v       string
		n, want int
	}{
		{"", 1000, 250},
		{"0", 1000, 250},
		{"", 3, 1},
		{"1", 1000, 1000},
	} {
		t.Setenv(Env, c.v)
		want := c.want
		if Race {
			want = max(1, c.n/4)
		}
		if got := Share(t, c.n); got != want {
			t.Errorf("%s=%q: Share(%d) = %d, want %d", Env, c.v, c.n, got, want)
		}
	}
}
