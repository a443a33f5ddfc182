package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contextd/contextd/internal/request"
)

// envReader reads typed variables and collects every problem.
type envReader struct {
	lookup func(string) (string, bool)
	errs   []error
}

func (r *envReader) fail(name, value, reason string) {
	r.errs = append(r.errs, &Error{Var: name, Value: value, Reason: reason})
}

// choice reads one of the accepted values after normalizing with norm.
func (r *envReader) choice(name, def string, norm func(string) string, accepted ...string) string {
	v, ok := r.lookup(name)
	if !ok {
		return def
	}
	n := norm(strings.TrimSpace(v))
	if !slices.Contains(accepted, n) {
		r.fail(name, v, "must be one of "+strings.Join(accepted, ", "))
		return def
	}
	return n
}

// text reads a free string; empty means unset.
func (r *envReader) text(name string) string {
	v, _ := r.lookup(name)
	return strings.TrimSpace(v)
}

func (r *envReader) boolean(name string, def bool) bool {
	v, ok := r.lookup(name)
	if !ok {
		return def
	}
	b, valid := request.ParseBoolWord(v)
	if !valid {
		r.fail(name, v, "must be a boolean: true, false, 1, 0, yes, no, on or off")
		return def
	}
	return b
}

func (r *envReader) intRange(name string, def, lo, hi int) int {
	return int(r.int64Range(name, int64(def), int64(lo), int64(hi)))
}

func (r *envReader) int64Range(name string, def, lo, hi int64) int64 {
	v, ok := r.lookup(name)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < lo || n > hi {
		r.fail(name, v, rangeText(lo, hi))
		return def
	}
	return n
}

func rangeText(lo, hi int64) string {
	switch {
	case lo == math.MinInt64 || (lo == math.MinInt32 && hi == math.MaxInt32):
		return "must be an integer"
	case hi >= math.MaxInt32:
		return fmt.Sprintf("must be an integer of at least %d", lo)
	}
	return fmt.Sprintf("must be an integer from %d to %d", lo, hi)
}

// floatBetween reads a finite number in [lo, hi].
func (r *envReader) floatBetween(name string, def, lo, hi float64) float64 {
	v, ok := r.lookup(name)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < lo || f > hi {
		r.fail(name, v, "must be a number from "+strconv.FormatFloat(lo, 'f', -1, 64)+" to "+strconv.FormatFloat(hi, 'f', -1, 64))
		return def
	}
	return f
}

// triState reads auto|true|false (and the boolean words); "" when unset.
func (r *envReader) triState(name string) string {
	v, ok := r.lookup(name)
	if !ok {
		return "auto"
	}
	w := strings.ToLower(strings.TrimSpace(v))
	switch w {
	case "auto", "":
		return "auto"
	case "enabled":
		return "true"
	case "disabled":
		return "false"
	}
	if b, valid := request.ParseBoolWord(w); valid {
		return strconv.FormatBool(b)
	}
	r.fail(name, v, "must be auto, true or false (or 1/0, yes/no, on/off, enabled/disabled)")
	return "auto"
}

// seconds reads a number of seconds in (0, hi].
func (r *envReader) seconds(name string, def, hi float64) time.Duration {
	return r.secondsRange(name, def, hi, false)
}

// seconds0 reads a number of seconds in [0, hi].
func (r *envReader) seconds0(name string, def, hi float64) time.Duration {
	return r.secondsRange(name, def, hi, true)
}

// secondsBetween reads a number of seconds in [lo, hi].
func (r *envReader) secondsBetween(name string, def, lo, hi float64) time.Duration {
	f := def
	if v, ok := r.lookup(name); ok {
		n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(n) || n < lo || n > hi {
			r.fail(name, v, "must be a number of seconds from "+strconv.FormatFloat(lo, 'f', -1, 64)+" to "+strconv.FormatFloat(hi, 'f', -1, 64))
		} else {
			f = n
		}
	}
	return time.Duration(f * float64(time.Second))
}

func (r *envReader) secondsRange(name string, def, hi float64, zeroOK bool) time.Duration {
	f := def
	if v, ok := r.lookup(name); ok {
		n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(n) || n > hi || n < 0 || (n == 0 && !zeroOK) {
			lo := "greater than 0"
			if zeroOK {
				lo = "at least 0"
			}
			r.fail(name, v, "must be a number of seconds "+lo+" and at most "+strconv.FormatFloat(hi, 'f', -1, 64))
		} else {
			f = n
		}
	}
	return time.Duration(f * float64(time.Second))
}
