package contextd

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/contextd/contextd/persist"
)

// The sixteen metadata filter operators.
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

// filterProblem is a validation failure of the structural filters, which
// the search tools report inside a normal response rather than as an error.
type filterProblem struct {
	error  string   // the response's error field
	errors []string // validation_errors
}

// parseMetaKey validates a metadata key and splits it into its path.
func parseMetaKey(key string) ([]string, error) {
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

// filterScalar converts a JSON scalar of a filter into the store's kinds.
func filterScalar(v any) (any, error) {
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
		return filterScalar(float64(x))
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
		return filterScalar(f)
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case int32:
		return int64(x), nil
	}
	return nil, fmt.Errorf("unsupported value type %T", v)
}

// parseMetaFilter validates one advanced filter object.
func parseMetaFilter(raw map[string]any) (persist.MetaCond, []string) {
	var errs []string
	wrap := func(msg string) { errs = append(errs, fmt.Sprintf("Invalid metadata filter %s: %s", pyRepr(raw), msg)) }
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
	} else if path, err := parseMetaKey(key); err != nil {
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
		case len(list) > maxFilterItems:
			wrap(fmt.Sprintf("Operator %s accepts at most %d list members, got %d; narrow the membership list", c.Op, maxFilterItems, len(list)))
		default:
			for _, m := range list {
				if m == nil {
					wrap(fmt.Sprintf("Operator %s list members must be non-null scalars", c.Op))
					break
				}
				s, err := filterScalar(m)
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
		} else if _, err := filterScalar(s); err != nil {
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
		s, err := filterScalar(v)
		if err != nil {
			wrap(fmt.Sprintf("Operator %s: %v", c.Op, err))
		}
		c.Value = s
	}
	return c, errs
}

// pyRepr renders a filter object the way Python prints a dict.
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return pyQuote(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, el := range x {
			parts[i] = pyRepr(el)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		order := []string{"key", "operator", "value", "case_sensitive"}
		var keys []string
		for _, k := range order {
			if _, ok := x[k]; ok {
				keys = append(keys, k)
			}
		}
		var rest []string
		for k := range x {
			if k != "key" && k != "operator" && k != "value" && k != "case_sensitive" {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		keys = append(keys, rest...)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyQuote(k) + ": " + pyRepr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		return fmt.Sprint(x)
	}
}

// builtFilter is a validated SearchFilter.
type builtFilter struct {
	persist.Filter
	applied int // the filters_applied statistic
}

// buildFilter validates the structural filters. Date and unstorable-string
// problems are errors; cap and metadata problems come back as a
// filterProblem for the structured response.
func (e *Engine) buildFilter(f SearchFilter) (*builtFilter, *filterProblem, error) {
	if n := len(f.Tags); n > maxFilterItems {
		msg := fmt.Sprintf("Too many tags in filter: %d exceeds the maximum of %d. Narrow the filter to at most %d tags.", n, maxFilterItems, maxFilterItems)
		return nil, &filterProblem{error: msg, errors: []string{msg}}, nil
	}
	if n := len(f.Metadata); n > maxFilterItems {
		msg := fmt.Sprintf("Too many metadata keys in filter: %d exceeds the maximum of %d. Narrow the filter to at most %d keys.", n, maxFilterItems, maxFilterItems)
		return nil, &filterProblem{error: msg, errors: []string{msg}}, nil
	}
	if n := len(f.MetadataFilters); n > maxFilterItems {
		msg := fmt.Sprintf("Too many metadata filters: %d exceeds the maximum of %d. Narrow the query to at most %d filters.", n, maxFilterItems, maxFilterItems)
		return nil, &filterProblem{error: msg, errors: []string{msg}}, nil
	}
	if err := checkStorable("thread_id", f.ThreadID); err != nil {
		return nil, nil, err
	}
	for _, t := range f.Tags {
		if err := checkStorable("tags", t); err != nil {
			return nil, nil, err
		}
	}
	b := &builtFilter{}
	b.ThreadID, b.Source, b.ContentType = f.ThreadID, f.Source, f.ContentType
	for _, s := range []string{f.ThreadID, f.Source, f.ContentType} {
		if s != "" {
			b.applied++
		}
	}
	start, end, err := parseDateRange(f.StartDate, f.EndDate)
	if err != nil {
		return nil, nil, err
	}
	b.Start, b.End = start, end
	if start != nil {
		b.applied++
	}
	if end != nil {
		b.applied++
	}
	var errs []string
	if f.Tags != nil {
		b.Tags = normalizeTags(f.Tags)
		if len(f.Tags) > 0 && len(b.Tags) == 0 {
			errs = append(errs, "Tag filter requires at least one non-blank tag")
		}
		if len(b.Tags) > 0 {
			b.applied++
		}
	}
	keys := make([]string, 0, len(f.Metadata))
	for k := range f.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		path, err := parseMetaKey(k)
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
		s, err := filterScalar(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("Invalid metadata value for key '%s': %v", k, err))
			continue
		}
		b.Meta = append(b.Meta, persist.MetaCond{Path: path, Op: "eq", Value: s, CaseSensitive: true})
		b.applied++
	}
	for _, raw := range f.MetadataFilters {
		c, ferrs := parseMetaFilter(raw)
		if len(ferrs) > 0 {
			errs = append(errs, ferrs...)
			continue
		}
		b.Meta = append(b.Meta, c)
		b.applied++
	}
	if len(errs) > 0 {
		return nil, &filterProblem{error: "Metadata filter validation failed", errors: errs}, nil
	}
	return b, nil, nil
}

// dateRe matches the ISO 8601 forms Python's datetime.fromisoformat reads.
var dateRe = regexp.MustCompile(`^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d+)?)?)?)?)?$`)

// weekDateRe matches an ISO week date (2025-W48, 2025-W48-6, 2025W486),
// which fromisoformat also reads.
var weekDateRe = regexp.MustCompile(`^(\d{4})-?W(\d{2})(?:-?([1-7]))?(.*)$`)

// weekToCalendar rewrites a leading ISO week date as a calendar date, so
// the rest of the parser sees one shape.
func weekToCalendar(v string) (string, bool) {
	m := weekDateRe.FindStringSubmatch(v)
	if m == nil {
		return v, true
	}
	y, _ := strconv.Atoi(m[1])
	w, _ := strconv.Atoi(m[2])
	d := 1
	if m[3] != "" {
		d, _ = strconv.Atoi(m[3])
	}
	jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC)
	week1 := jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
	_, maxWeek := time.Date(y, 12, 28, 0, 0, 0, 0, time.UTC).ISOWeek()
	if w < 1 || w > maxWeek {
		return v, false
	}
	return week1.AddDate(0, 0, (w-1)*7+d-1).Format("2006-01-02") + m[4], true
}

var subMinuteOffset = regexp.MustCompile(`[+-]\d{2}:?\d{2}:?\d{2}`)

// parsedDate is one date parameter: its UTC instant and canonical text.
type parsedDate struct {
	t     time.Time
	canon string
}

func parseDate(param, v string, endOfDay bool) (*parsedDate, error) {
	if v == "" {
		return nil, invalidf(`Invalid %s format: "%s". Use ISO 8601 format (e.g., "2025-11-29" or "2025-11-29T10:00:00")`, param, v)
	}
	bad := func() error {
		return invalidf(`Invalid %s format: "%s". Use ISO 8601 format (e.g., "2025-11-29" or "2025-11-29T10:00:00")`, param, v)
	}
	cal, ok := weekToCalendar(v)
	if !ok {
		return nil, bad()
	}
	m := dateRe.FindStringSubmatch(cal)
	if m == nil {
		return nil, bad()
	}
	if m[8] != "" && m[8] != "Z" && subMinuteOffset.MatchString(m[8]) {
		return nil, invalidf(`Invalid %s format: "%s". A timezone offset with sub-minute precision (seconds or a fractional part) is not supported: SQLite evaluates it to NULL (silently matching zero rows) while PostgreSQL accepts it, so it is rejected for cross-backend parity. Use a whole-minute offset (e.g. "+05:30").`, param, v)
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	y, mo, d := num(m[1]), num(m[2]), num(m[3])
	dateOnly := m[4] == ""
	hh, mm, ss, ns := num(m[4]), num(m[5]), num(m[6]), 0
	if m[7] != "" {
		frac := (m[7] + "000000000")[:9]
		ns = num(frac)
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 59 {
		return nil, bad()
	}
	loc := time.UTC
	if z := m[8]; z != "" && z != "Z" {
		digits := strings.ReplaceAll(z[1:], ":", "")
		oh, om := num(digits[:2]), 0
		if len(digits) >= 4 {
			om = num(digits[2:4])
		}
		if oh > 23 || om > 59 {
			return nil, bad()
		}
		off := oh*3600 + om*60
		if z[0] == '-' {
			off = -off
		}
		loc = time.FixedZone("", off)
	}
	t := time.Date(y, time.Month(mo), d, hh, mm, ss, ns, loc)
	if t.Day() != d || int(t.Month()) != mo {
		return nil, bad()
	}
	canon := t.Format("2006-01-02")
	if dateOnly && endOfDay {
		t = t.Add(24*time.Hour - time.Microsecond)
		canon += "T23:59:59.999999"
	} else if !dateOnly {
		canon = t.Format("2006-01-02T15:04:05")
		if us := t.Nanosecond() / 1000; us != 0 {
			canon += fmt.Sprintf(".%06d", us)
		}
		if m[8] != "" {
			canon += t.Format("-07:00")
		}
	}
	return &parsedDate{t: t.UTC(), canon: canon}, nil
}

// parseDateRange parses start_date and end_date (end-of-day for a
// date-only end) and checks their order.
func parseDateRange(start, end string) (*time.Time, *time.Time, error) {
	var s, e *parsedDate
	var err error
	if start != "" {
		if s, err = parseDate("start_date", start, false); err != nil {
			return nil, nil, err
		}
	}
	if end != "" {
		if e, err = parseDate("end_date", end, true); err != nil {
			return nil, nil, err
		}
	}
	if s != nil && e != nil && s.t.After(e.t) {
		return nil, nil, invalidf("Invalid date range: start_date (%s) is after end_date (%s)", s.canon, e.canon)
	}
	var st, et *time.Time
	if s != nil {
		st = &s.t
	}
	if e != nil {
		et = &e.t
	}
	return st, et, nil
}
