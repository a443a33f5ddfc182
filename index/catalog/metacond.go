package catalog

import (
	"fmt"
	"math"
	"strings"

	"github.com/contextd/contextd/persist/sqlval"
)

// MetaCond is one metadata condition of metadata_filters (or of the
// metadata equality shorthand), validated by the caller: Value is a
// string, bool, int64 or finite float64 (nil for the operators without a
// value); Values holds the same kinds for in and not_in.
type MetaCond struct {
	Path          []string
	Op            string
	Value         any
	Values        []any
	CaseSensitive bool
}

// pred is a compiled condition: whether a cell matches (col resolves a
// text cell's dictionary id and an array cell's elements).
type pred func(col *column, ord uint32, c cell) bool

func floatBits(f float64) uint64 { return math.Float64bits(f) }

// cmpNum compares a stored number (kInt or kReal, 8 bytes) with a bound
// (int64 or float64) as SQLite does: exactly, also between an integer and
// a real.
func cmpNum(kind uint8, v uint64, bound any) int {
	switch b := bound.(type) {
	case int64:
		if kind == kInt {
			return cmp3(int64(v), b)
		}
		return -cmpIntFloat(b, math.Float64frombits(v))
	case float64:
		if kind == kInt {
			return cmpIntFloat(int64(v), b)
		}
		return cmp3(math.Float64frombits(v), b)
	}
	return 2 // not a number: no ordering
}

// numCmp is cmpNum with its bound's type resolved once (a condition is
// tested on up to every entry).
func numCmp(bound any) func(kind uint8, v uint64) int {
	switch b := bound.(type) {
	case int64:
		return func(kind uint8, v uint64) int {
			if kind == kInt {
				return cmp3(int64(v), b)
			}
			return -cmpIntFloat(b, math.Float64frombits(v))
		}
	case float64:
		return func(kind uint8, v uint64) int {
			if kind == kInt {
				return cmpIntFloat(int64(v), b)
			}
			return cmp3(math.Float64frombits(v), b)
		}
	}
	return func(uint8, uint64) int { return 2 }
}

func cmp3[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpIntFloat compares i and f exactly (float64(i) would round integers
// beyond 2^53).
func cmpIntFloat(i int64, f float64) int {
	switch {
	case f >= 9223372036854775808.0:
		return -1
	case f < -9223372036854775808.0:
		return 1
	}
	t := math.Trunc(f)
	if c := cmp3(i, int64(t)); c != 0 {
		return c
	}
	return cmp3(0, f-t)
}

func isNum(k uint8) bool { return k == kInt || k == kReal }

// compile turns c into a predicate over cells; absent is whether an
// entry without a value at the path (or JSON null there, for not_exists)
// matches, which only not_exists does.
func compile(c MetaCond) (pred, error) {
	fold := func(s string) string { return s }
	if !c.CaseSensitive {
		fold = asciiLower
	}
	switch c.Op {
	case "eq", "ne":
		neg := c.Op == "ne"
		switch v := c.Value.(type) {
		case string:
			want := fold(v)
			return textPred(func(s string) bool { return (fold(s) == want) != neg }), nil
		case int64, float64:
			cmp := numCmp(v)
			return func(_ *column, _ uint32, x cell) bool {
				return isNum(x.kind) && (cmp(x.kind, x.v) == 0) != neg
			}, nil
		case bool:
			want := kFalse
			if v != neg {
				want = kTrue
			}
			return func(_ *column, _ uint32, x cell) bool { return x.kind == want }, nil
		}
	case "gt", "gte", "lt", "lte":
		ok := map[string]func(int) bool{
			"gt": func(r int) bool { return r == 1 }, "gte": func(r int) bool { return r == 0 || r == 1 },
			"lt": func(r int) bool { return r == -1 }, "lte": func(r int) bool { return r == 0 || r == -1 },
		}[c.Op]
		switch v := c.Value.(type) {
		case string:
			return textPred(func(s string) bool { return ok(strings.Compare(s, v)) }), nil
		case int64, float64:
			cmp := numCmp(v)
			return func(_ *column, _ uint32, x cell) bool { return isNum(x.kind) && ok(cmp(x.kind, x.v)) }, nil
		}
	case "in", "not_in":
		strs := map[string]bool{}
		var nums []any
		var bools [kFalse + 1]bool
		for _, m := range c.Values {
			switch v := m.(type) {
			case string:
				strs[fold(v)] = true
			case int64, float64:
				nums = append(nums, v)
			case bool:
				bools[map[bool]uint8{true: kTrue, false: kFalse}[v]] = true
			default:
				return nil, fmt.Errorf("operator %s: unsupported value %T", c.Op, m)
			}
		}
		inStr := textPred(func(s string) bool { return strs[fold(s)] })
		in := func(col *column, x cell) bool {
			switch {
			case x.kind == kText:
				return inStr(col, 0, x)
			case isNum(x.kind):
				for _, n := range nums {
					if cmpNum(x.kind, x.v, n) == 0 {
						return true
					}
				}
			case x.kind == kTrue || x.kind == kFalse:
				return bools[x.kind]
			}
			return false
		}
		if c.Op == "in" {
			return func(col *column, _ uint32, x cell) bool { return in(col, x) }, nil
		}
		return func(col *column, _ uint32, x cell) bool { return x.kind > kNull && !in(col, x) }, nil
	case "exists", "is_not_null":
		return func(_ *column, _ uint32, x cell) bool { return x.kind > kNull }, nil
	case "not_exists":
		return func(_ *column, _ uint32, x cell) bool { return x.kind <= kNull }, nil
	case "is_null":
		return func(_ *column, _ uint32, x cell) bool { return x.kind == kNull }, nil
	case "contains", "starts_with", "ends_with":
		v, isStr := c.Value.(string)
		if !isStr {
			break
		}
		needle := fold(v)
		test := map[string]func(string, string) bool{
			"contains": strings.Contains, "starts_with": strings.HasPrefix, "ends_with": strings.HasSuffix,
		}[c.Op]
		return textPred(func(s string) bool { return test(fold(s), needle) }), nil
	case "array_contains":
		var hit func(e elem) bool
		switch v := c.Value.(type) {
		case string:
			want := fold(v)
			hit = func(e elem) bool { return e.kind == kText && fold(e.s) == want }
		case int64, float64:
			hit = func(e elem) bool { return isNum(e.kind) && cmpNum(e.kind, e.v, v) == 0 }
		case bool:
			want := kFalse
			if v {
				want = kTrue
			}
			hit = func(e elem) bool { return e.kind == want }
		default:
			return nil, fmt.Errorf("operator %s requires a non-null scalar value", c.Op)
		}
		return func(col *column, ord uint32, x cell) bool {
			if x.kind != kArray {
				return false
			}
			for _, e := range col.arrays[ord] {
				if hit(e) {
					return true
				}
			}
			return false
		}, nil
	default:
		return nil, fmt.Errorf("unknown operator %q", c.Op)
	}
	return nil, fmt.Errorf("operator %s: unsupported value %T", c.Op, c.Value)
}

// textPred is a predicate on text cells, evaluated once per distinct
// string of the column (its dictionary id): the condition's memo. A
// compiled predicate serves one column of one query.
func textPred(test func(string) bool) pred {
	var memo []uint8 // per dictionary id: 0 unknown, 1 match, 2 not
	return func(col *column, _ uint32, x cell) bool {
		if x.kind != kText {
			return false
		}
		if memo == nil {
			memo = make([]uint8, len(col.strs))
		}
		switch memo[x.v] {
		case 1:
			return true
		case 2:
			return false
		}
		hit := test(col.strs[x.v])
		memo[x.v] = 2
		if hit {
			memo[x.v] = 1
		}
		return hit
	}
}

// asciiLower folds A-Z only, as SQLite's lower() does (the answers
// must equal SQL's).
var asciiLower = sqlval.ASCIILower
