package request

import (
	"encoding/json"
	"fmt"
	"github.com/contextd/contextd/api"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/persist"
)

// metaOperators are the sixteen metadata filter operators.
var metaOperators = []string{
	"eq", "ne", "gt", "gte", "lt", "lte", "in", "not_in", "exists", "not_exists",
	"contains", "starts_with", "ends_with", "is_null", "is_not_null", "array_contains",
}

var (
	metaKeyRe      = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)
	allDigitsRe    = regexp.MustCompile(`^-?[0-9]+$`)
	metaOperatorOK = func() map[string]bool {
		m := map[string]bool{}
		for _, o := range metaOperators {
			m[o] = true
		}
		return m
	}()
)

// metaFilterFields are the fields of a filter object in the reference
// model's order, which is the order Python prints them in.
var metaFilterFields = []string{"key", "operator", "value", "case_sensitive"}

// FilterSpec holds the structural filters of the search tools as the
// caller sent them (the engine's SearchFilter converts to it).
type FilterSpec = api.SearchFilter

// Filter is a validated FilterSpec.
type Filter struct {
	persist.Filter
	Applied int // the filters_applied statistic
}

// Problem is a validation failure of the structural filters, which the
// search tools report inside a normal response rather than as an error.
type Problem struct {
	Message string   // the response's error field
	Errors  []string // validation_errors
}

// ParseMetaKey validates a metadata key and splits it into its path.
func ParseMetaKey(key string) ([]string, error) {
	//lint:ignore ST1005 the reference server's exact message, which callers match
	bad := fmt.Errorf("Invalid metadata key: %s. Only alphanumeric characters, dots, underscores, and hyphens are allowed.", key)
	if strings.TrimSpace(key) == "" || !metaKeyRe.MatchString(key) {
		return nil, bad
	}
	segs := strings.Split(key, ".")
	for i, s := range segs {
		if s == "" || (i > 0 && allDigitsRe.MatchString(s)) {
			return nil, bad
		}
	}
	return segs, nil
}

// FilterScalar converts a JSON scalar of a filter into the store's kinds.
func FilterScalar(v any) (any, error) {
	switch x := v.(type) {
	case string:
		if strings.IndexByte(x, 0) >= 0 {
			return nil, fmt.Errorf("string values cannot contain an embedded NUL (U+0000) character")
		}
		return x, nil
	case bool:
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("numeric values must be finite")
		}
		if x == math.Trunc(x) && math.Abs(x) < 9.2e18 {
			return int64(x), nil
		}
		return x, nil
	case float32:
		return FilterScalar(float64(x))
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n, nil
		}
		if !strings.ContainsAny(string(x), ".eE") {
			return nil, fmt.Errorf("integer values must fit in 64 bits, got %s", x)
		}
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("numeric value %s is out of range", x)
		}
		return FilterScalar(f)
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case int32:
		return int64(x), nil
	}
	return nil, fmt.Errorf("unsupported value type %T", v)
}

// ParseMetaFilter validates one advanced filter object. It returns every
// problem of the object, each wrapped with the object as Python prints it.
func ParseMetaFilter(raw map[string]any) (persist.MetaCond, []string) {
	var errs []string
	wrap := func(msg string) {
		errs = append(errs, fmt.Sprintf("Invalid metadata filter %s: %s", pyfmt.Repr(raw, metaFilterFields...), msg))
	}
	var extra []string
	for k := range raw {
		switch k {
		case "key", "operator", "value", "case_sensitive":
		default:
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		wrap(k + ": Extra inputs are not permitted")
	}
	var c persist.MetaCond
	key, ok := raw["key"].(string)
	if !ok {
		wrap("key: Field required (a string)")
	} else if path, err := ParseMetaKey(key); err != nil {
		wrap(err.Error())
	} else {
		c.Path = path
	}
	c.Op = "eq"
	if o, present := raw["operator"]; present && o != nil {
		s, ok := o.(string)
		if !ok || !metaOperatorOK[s] {
			wrap(fmt.Sprintf("operator: Input should be one of %s", strings.Join(metaOperators, ", ")))
		} else {
			c.Op = s
		}
	}
	if cs, present := raw["case_sensitive"]; present && cs != nil {
		b, ok := cs.(bool)
		if !ok {
			wrap("case_sensitive: Input should be a valid boolean")
		}
		c.CaseSensitive = b
	}
	if len(errs) > 0 {
		return c, errs
	}
	v := raw["value"]
	switch c.Op {
	case "in", "not_in":
		list, ok := v.([]any)
		switch {
		case !ok:
			wrap(fmt.Sprintf("Operator %s requires a list value", c.Op))
		case len(list) == 0:
			wrap(fmt.Sprintf("Operator %s requires a non-empty list", c.Op))
		case len(list) > MaxFilterItems:
			wrap(fmt.Sprintf("Operator %s accepts at most %d list members, got %d; narrow the membership list", c.Op, MaxFilterItems, len(list)))
		default:
			for _, m := range list {
				if m == nil {
					wrap(fmt.Sprintf("Operator %s list members must be non-null scalars", c.Op))
					break
				}
				s, err := FilterScalar(m)
				if err != nil {
					wrap(fmt.Sprintf("Operator %s list members must be scalars: %v", c.Op, err))
					break
				}
				c.Values = append(c.Values, s)
			}
		}
	case "contains", "starts_with", "ends_with":
		s, ok := v.(string)
		if !ok {
			wrap(fmt.Sprintf("Operator %s requires a string value", c.Op))
		} else if _, err := FilterScalar(s); err != nil {
			wrap(fmt.Sprintf("Operator %s: %v", c.Op, err))
		} else {
			c.Value = s
		}
	case "eq", "ne", "gt", "gte", "lt", "lte", "array_contains":
		switch v.(type) {
		case []any, map[string]any:
			wrap(fmt.Sprintf("Operator %s requires a scalar value, not a list", c.Op))
			return c, errs
		case nil:
			wrap(fmt.Sprintf("Operator %s requires a non-null scalar value", c.Op))
			return c, errs
		}
		if _, isBool := v.(bool); isBool && (c.Op == "gt" || c.Op == "gte" || c.Op == "lt" || c.Op == "lte") {
			wrap(fmt.Sprintf("Operator %s requires a numeric or string value, not a boolean", c.Op))
			return c, errs
		}
		s, err := FilterScalar(v)
		if err != nil {
			wrap(fmt.Sprintf("Operator %s: %v", c.Op, err))
		}
		c.Value = s
	}
	return c, errs
}

// capProblem is the Problem of a list over MaxFilterItems.
func capProblem(msg string) *Problem { return &Problem{Message: msg, Errors: []string{msg}} }

// BuildFilter validates the structural filters. Date and unstorable-string
// problems are errors; cap and metadata problems come back as a Problem
// for the structured response.
func BuildFilter(f FilterSpec) (*Filter, *Problem, error) {
	if n := len(f.Tags); n > MaxFilterItems {
		return nil, capProblem(fmt.Sprintf("Too many tags in filter: %d exceeds the maximum of %d. Narrow the filter to at most %d tags.", n, MaxFilterItems, MaxFilterItems)), nil
	}
	if n := len(f.Metadata); n > MaxFilterItems {
		return nil, capProblem(fmt.Sprintf("Too many metadata keys in filter: %d exceeds the maximum of %d. Narrow the filter to at most %d keys.", n, MaxFilterItems, MaxFilterItems)), nil
	}
	if n := len(f.MetadataFilters); n > MaxFilterItems {
		return nil, capProblem(fmt.Sprintf("Too many metadata filters: %d exceeds the maximum of %d. Narrow the query to at most %d filters.", n, MaxFilterItems, MaxFilterItems)), nil
	}
	if err := CheckStorable("thread_id", f.ThreadID); err != nil {
		return nil, nil, err
	}
	for _, t := range f.Tags {
		if err := CheckStorable("tags", t); err != nil {
			return nil, nil, err
		}
	}
	b := &Filter{}
	b.ThreadID, b.Source, b.ContentType = f.ThreadID, f.Source, f.ContentType
	// Without a thread_id the search tools leave the knowledge threads
	// out; naming one (persist.IsKnowledgeThread) searches it like any
	// thread (persist/knowledge.go).
	b.OmitKnowledge = f.ThreadID == ""
	for _, s := range []string{f.ThreadID, f.Source, f.ContentType} {
		if s != "" {
			b.Applied++
		}
	}
	start, end, err := ParseDateRange(f.StartDate, f.EndDate)
	if err != nil {
		return nil, nil, err
	}
	b.Start, b.End = start, end
	if start != nil {
		b.Applied++
	}
	if end != nil {
		b.Applied++
	}
	var errs []string
	if f.Tags != nil {
		b.Tags = NormalizeTags(f.Tags)
		if len(f.Tags) > 0 && len(b.Tags) == 0 {
			errs = append(errs, "Tag filter requires at least one non-blank tag")
		}
		if len(b.Tags) > 0 {
			b.Applied++
		}
	}
	keys := make([]string, 0, len(f.Metadata))
	for k := range f.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		path, err := ParseMetaKey(k)
		if err != nil {
			errs = append(errs, fmt.Sprintf("Invalid metadata key '%s': %v", k, err))
			continue
		}
		v := f.Metadata[k]
		switch v.(type) {
		case string, bool, float64, float32, int, int64, int32, json.Number:
		default:
			errs = append(errs, fmt.Sprintf("Invalid metadata value for key '%s': only string, number and boolean values are supported", k))
			continue
		}
		s, err := FilterScalar(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("Invalid metadata value for key '%s': %v", k, err))
			continue
		}
		b.Meta = append(b.Meta, persist.MetaCond{Path: path, Op: "eq", Value: s, CaseSensitive: true})
		b.Applied++
	}
	for _, raw := range f.MetadataFilters {
		c, ferrs := ParseMetaFilter(raw)
		if len(ferrs) > 0 {
			errs = append(errs, ferrs...)
			continue
		}
		b.Meta = append(b.Meta, c)
		b.Applied++
	}
	if len(errs) > 0 {
		return nil, &Problem{Message: "Metadata filter validation failed", Errors: errs}, nil
	}
	return b, nil, nil
}
