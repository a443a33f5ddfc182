package sqlstore_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/contextd/contextd/persist"
)

type goldCase struct {
	Name   string
	Acc    persist.Access
	Filter persist.Filter
}

func goldCases() []goldCase {
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 6789, time.UTC)
	t1 := time.Date(2024, 2, 2, 3, 4, 5, 0, time.UTC)
	u := persist.Access{Principal: "alice"}
	g := persist.Access{Principal: "bob", Groups: []string{"eng", "ops"}}
	big := make([]string, 201)
	for i := range big {
		big[i] = fmt.Sprintf("id%03d", i)
	}
	m := func(op string, v any, vs []any, cs bool, path ...string) persist.MetaCond {
		if len(path) == 0 {
			path = []string{"status"}
		}
		return persist.MetaCond{Path: path, Op: op, Value: v, Values: vs, CaseSensitive: cs}
	}
	cs := []goldCase{
		{"access only", u, persist.Filter{}},
		{"groups", g, persist.Filter{}},
		{"structural", g, persist.Filter{ThreadID: "t1", Source: "user", ContentType: "text", Tags: []string{"a", "b"}, Start: &t0, End: &t1, OmitKnowledge: true}},
		{"before", u, persist.Filter{Before: &persist.Position{CreatedAt: t0, ID: "abc"}}},
		{"ids", u, persist.Filter{IDs: []string{"x", "y"}, ThreadID: "t", Start: &t0}},
		{"ids empty", u, persist.Filter{IDs: []string{}}},
		{"ids long", u, persist.Filter{IDs: big}},
		{"tags long", u, persist.Filter{Tags: big}},
	}
	ops := []persist.MetaCond{
		m("eq", "Active", nil, false), m("eq", "Active", nil, true), m("ne", "Active", nil, false), m("ne", "Active", nil, true),
		m("eq", int64(3), nil, false), m("ne", 2.5, nil, false), m("eq", true, nil, false), m("ne", true, nil, false), m("eq", nil, nil, false),
		m("eq", json.Number("7"), nil, false), m("eq", "x", nil, false, "a", "b'c"), m("eq", "x", nil, false, "content"),
		m("gt", "b", nil, false), m("gte", int64(1), nil, false), m("lt", 1.5, nil, false), m("lte", "z", nil, true), m("gt", true, nil, false),
		m("in", nil, []any{"A", "b", int64(1), 2.5, true, false}, false), m("in", nil, []any{"A"}, true), m("not_in", nil, []any{int64(1), "x"}, false),
		m("in", nil, []any{}, false), m("in", nil, []any{mathNaN()}, false),
		m("exists", nil, nil, false), m("is_not_null", nil, nil, false), m("not_exists", nil, nil, false), m("is_null", nil, nil, false),
		m("contains", "Ab", nil, false), m("contains", "Ab", nil, true), m("contains", "", nil, false), m("starts_with", "héllo", nil, false),
		m("ends_with", "Xy", nil, true), m("ends_with", "Xy", nil, false), m("contains", int64(1), nil, false),
		m("array_contains", "Go", nil, false), m("array_contains", "Go", nil, true), m("array_contains", int64(4), nil, false),
		m("array_contains", false, nil, false), m("array_contains", nil, nil, false), m("bogus", "x", nil, false),
		m("eq", "x", nil, false, "bad\"seg"), {Path: nil, Op: "eq", Value: "x"}, m("eq", struct{}{}, nil, false),
	}
	for i, c := range ops {
		cs = append(cs, goldCase{fmt.Sprintf("meta %d %s", i, c.Op), u, persist.Filter{Meta: []persist.MetaCond{c}}})
		cs = append(cs, goldCase{fmt.Sprintf("meta %d %s in thread", i, c.Op), u, persist.Filter{ThreadID: "t", Meta: []persist.MetaCond{c}}})
	}
	cs = append(cs, goldCase{"two metas", g, persist.Filter{Meta: []persist.MetaCond{ops[0], ops[4], ops[40]}}})
	return cs
}

func mathNaN() float64 { return math.NaN() }

func goldArgs(args []any) string {
	var s []string
	for _, a := range args {
		switch x := a.(type) {
		case []string:
			s = append(s, fmt.Sprintf("%T:%q", a, x))
		case *string:
			if x == nil {
				s = append(s, "*string:nil")
			} else {
				s = append(s, fmt.Sprintf("*string:%q", *x))
			}
		default:
			s = append(s, fmt.Sprintf("%T:%#v", a, a))
		}
	}
	return strings.Join(s, " | ")
}
