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
