package server

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/internal/request"
)

// argError is a rejected tool argument. Its text is shown to the caller
// verbatim as the tool error.
type argError struct {
	Param string // the parameter at fault ("" for the arguments as a whole)
	Msg   string
}

func (e *argError) Error() string { return e.Msg }

func argErrf(name, format string, a ...any) *argError {
	return &argError{Param: name, Msg: fmt.Sprintf(format, a...)}
}

// nulMessage is the reference text for a string PostgreSQL cannot store.
func nulMessage(name string) string {
	return name + ": A string value contains an embedded NUL (U+0000) character: PostgreSQL cannot store it, " +
		"so the same entry would store on SQLite but fail on PostgreSQL. Remove it before storing."
}

// args holds the validated, coerced arguments of one call, keyed by
// parameter name. Only present, non-null parameters appear. Values are
// canonical: string, int, bool, []any (elements canonical), map[string]any,
// or anything for tAny parameters.
type args map[string]any

func (a args) has(name string) bool { _, ok := a[name]; return ok }

func (a args) str(name string) string { s, _ := a[name].(string); return s }

func (a args) strPtr(name string) *string {
	if s, ok := a[name].(string); ok {
		return &s
	}
	return nil
}

func (a args) int(name string) int { n, _ := a[name].(int); return n }

func (a args) bool(name string) bool { b, _ := a[name].(bool); return b }

func (a args) boolPtr(name string) *bool {
	if b, ok := a[name].(bool); ok {
		return &b
	}
	return nil
}

// strings returns a string-array parameter: nil when absent, a non-nil
// (possibly empty) slice when present.
func (a args) strings(name string) []string {
	l, ok := a[name].([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

// object returns an object parameter: nil when absent, non-nil when present.
func (a args) object(name string) map[string]any { m, _ := a[name].(map[string]any); return m }

// objects returns an array-of-objects parameter: nil when absent, a non-nil
// (possibly empty) slice when present.
func (a args) objects(name string) []map[string]any {
	l, ok := a[name].([]any)
	if !ok {
		return nil
	}
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		m, _ := e.(map[string]any)
		out = append(out, m)
	}
	return out
}

// float returns a number parameter and whether it was given.
func (a args) float(name string) (float64, bool) { f, ok := a[name].(float64); return f, ok }

// decodeArgs validates raw tool arguments against params and coerces them
// numbers and booleans given as strings are parsed, arrays and
// objects given as JSON strings are decoded, integral floats are integers.
// null counts as absent. The first problem is returned as an *argError
// naming the parameter; unknown parameters are reported first.
func decodeArgs(tool string, params []param, raw any) (args, error) {
	return decodeStyled(tool, params, raw, false)
}

// decodeExact is decodeArgs for the tools declared with exactTypes (the
// knowledge tools, as their reference has it): unknown parameters are
// refused the same way, but values are taken as JSON typed them, with no
// lax coercion; a value of another type is refused as "Parameter 'x' must
// be a string." ("an integer.", "a number."), and a missing required
// parameter reads as absent, so the tool answers it in its own words.
// An integer is clamped to ±2^31, beyond any bound a tool checks.
func decodeExact(tool string, params []param, raw any) (args, error) {
	return decodeStyled(tool, params, raw, true)
}

func decodeStyled(tool string, params []param, raw any, exact bool) (args, error) {
	in, err := argumentMap(raw)
	if err != nil {
		return nil, err
	}
	known := make(map[string]*param, len(params))
	for i := range params {
		known[params[i].name] = &params[i]
	}
	var unknown []string
	for k := range in {
		if _, ok := known[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		// A name is repeated back only abbreviated: an argument's key is
		// as long as the client makes it.
		name := unknown[0]
		for i, n := 0, 0; i < len(name); n++ {
			if n == 64 {
				name = name[:i] + "..."
				break
			}
			_, w := utf8.DecodeRuneInString(name[i:])
			i += w
		}
		return nil, argErrf(name, "Unexpected parameter '%s' (%s)", name, accepted(tool, params))
	}
	out := make(args, len(in))
	for i := range params {
		p := &params[i]
		v, ok := in[p.name]
		if ok && v != nil {
			v, err = canonical(v)
			if err != nil {
				return nil, argErrf(p.name, "Parameter '%s' is not valid JSON: %v", p.name, err)
			}
		}
		if exact {
			if ok && v != nil {
				if out[p.name], err = exactValue(p, v); err != nil {
					return nil, err
				}
			}
			continue
		}
		if !ok || v == nil {
			if p.required {
				return nil, argErrf(p.name, "Missing required parameter '%s'", p.name)
			}
			continue
		}
		cv, present, err := coerce(p, v, "Parameter '"+p.name+"'", p.name)
		if err != nil {
			return nil, err
		}
		if !present { // a JSON string "null"
			if p.required {
				return nil, argErrf(p.name, "Missing required parameter '%s'", p.name)
			}
			continue
		}
		out[p.name] = cv
	}
	return out, nil
}

// exactValue is v as decodeExact takes it: a string, an int or a float64
// as p declares; any other parameter type is coerced as decodeArgs does.
func exactValue(p *param, v any) (any, error) {
	switch p.typ {
	case tString:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case tInteger, tNumber:
		f, ok := jsonFloat(v)
		if ok && p.typ == tNumber {
			return f, nil
		}
		if ok && f == math.Trunc(f) {
			return int(max(min(f, 1<<31), -1<<31)), nil
		}
	default:
		cv, _, err := coerce(p, v, "Parameter '"+p.name+"'", p.name)
		return cv, err
	}
	return nil, argErrf(p.name, "Parameter '%s' must be %s.", p.name, article(p.typ))
}

// jsonFloat reads a JSON number (never a string holding one).
func jsonFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x)
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil && !math.IsNaN(f)
	}
	return 0, false
}

func accepted(tool string, params []param) string {
	if len(params) == 0 {
		return tool + " takes no parameters"
	}
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.name
	}
	return tool + " accepts: " + strings.Join(names, ", ")
}

// argumentMap turns the arguments of a call into a JSON object.
func argumentMap(raw any) (map[string]any, error) {
	switch v := raw.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return v, nil
	}
	var b []byte
	switch v := raw.(type) {
	case json.RawMessage:
		b = v
	case []byte:
		b = v
	case string:
		b = []byte(v)
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, &argError{Msg: "Tool arguments must be a JSON object"}
		}
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, &argError{Msg: "Tool arguments must be a JSON object"}
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// canonical returns v as the types encoding/json produces, converting
// values built in Go (typed slices, maps, ints) through a JSON round trip.
func canonical(v any) (any, error) {
	if isJSONValue(v) {
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(b, &out)
	return out, err
}

func isJSONValue(v any) bool {
	switch x := v.(type) {
	case nil, string, bool, float64, json.Number:
		return true
	case []any:
		for _, e := range x {
			if !isJSONValue(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range x {
			if !isJSONValue(e) {
				return false
			}
		}
		return true
	}
	return false
}

// coerce validates one value against p. label names the value in messages
// ("Parameter 'tags'" or "Parameter 'tags' item 3"); name is the parameter
// for NUL messages. present is false for a JSON string "null".
func coerce(p *param, v any, label, name string) (out any, present bool, err error) {
	orig := v
	switch p.typ {
	case tString:
		s, ok := v.(string)
		if !ok {
			return nil, false, typeErr(name, label, "a string", v)
		}
		return s, true, checkString(p, s, label, name, -1)
	case tInteger:
		n, ok := toInt(v)
		if !ok {
			return nil, false, typeErr(name, label, "an integer", v)
		}
		if p.min != nil && n < *p.min {
			return nil, false, argErrf(name, "%s must be at least %d, got %d", label, *p.min, n)
		}
		if p.max != nil && n > *p.max {
			return nil, false, argErrf(name, "%s must be at most %d, got %d", label, *p.max, n)
		}
		return int(n), true, nil
	case tNumber:
		f, ok := toFloat(v)
		if !ok {
			return nil, false, typeErr(name, label, "a number", v)
		}
		return f, true, nil
	case tBoolean:
		b, ok := toBool(v)
		if !ok {
			return nil, false, typeErr(name, label, "a boolean", v)
		}
		return b, true, nil
	case tArray:
		if s, ok := v.(string); ok {
			dv, ok := jsonString(s)
			if !ok {
				return nil, false, typeErr(name, label, "an array", v)
			}
			if dv == nil {
				return nil, false, nil
			}
			v = dv
		}
		l, ok := v.([]any)
		if !ok {
			return nil, false, typeErr(name, label, "an array", orig)
		}
		return checkArray(p, l, label, name)
	case tObject:
		if s, ok := v.(string); ok {
			dv, ok := jsonString(s)
			if !ok {
				return nil, false, typeErr(name, label, "an object", v)
			}
			if dv == nil {
				return nil, false, nil
			}
			v = dv
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, typeErr(name, label, "an object", orig)
		}
		return m, true, nil
	}
	return v, true, nil
}

func checkString(p *param, s, label, name string, idx int) error {
	if len(p.enum) > 0 && !contains(p.enum, s) {
		return argErrf(name, "%s must be one of %s, got %s", label, quoteList(p.enum), pyfmt.Abbrev(s))
	}
	if p.minLength > 0 || p.maxLength > 0 {
		n := utf8.RuneCountInString(s)
		if n < p.minLength {
			if n == 0 && p.empty != "" {
				return argErrf(name, "%s", p.empty)
			}
			if p.minLength == 1 {
				return argErrf(name, "%s must not be empty", label)
			}
			return argErrf(name, "%s must be at least %d characters, got %d", label, p.minLength, n)
		}
		if p.maxLength > 0 && n > p.maxLength {
			if p.tooLong != "" && idx >= 0 {
				return argErrf(name, p.tooLong, idx, n)
			}
			return argErrf(name, "%s must be at most %d characters, got %d", label, p.maxLength, n)
		}
	}
	if p.noNUL && strings.IndexByte(s, 0) >= 0 {
		return argErrf(name, "%s", nulMessage(name))
	}
	return nil
}

func checkArray(p *param, l []any, label, name string) (any, bool, error) {
	if p.minItems > 0 && len(l) < p.minItems {
		if p.minItems == 1 {
			return nil, false, argErrf(name, "%s must contain at least 1 item", label)
		}
		return nil, false, argErrf(name, "%s must contain at least %d items, got %d", label, p.minItems, len(l))
	}
	if p.maxItems > 0 && len(l) > p.maxItems {
		if p.tooMany != "" {
			return nil, false, argErrf(name, p.tooMany, len(l))
		}
		return nil, false, argErrf(name, "%s must contain at most %d items, got %d", label, p.maxItems, len(l))
	}
	out := make([]any, len(l))
	for i, e := range l {
		if p.items == nil {
			out[i] = e
			continue
		}
		el := fmt.Sprintf("%s item %d", label, i)
		if e == nil {
			return nil, false, typeErr(name, el, article(p.items.typ), e)
		}
		if p.items.typ == tString { // keep the element index for tooLong
			s, ok := e.(string)
			if !ok {
				return nil, false, typeErr(name, el, "a string", e)
			}
			if err := checkString(p.items, s, el, name, i); err != nil {
				return nil, false, err
			}
			out[i] = s
			continue
		}
		if p.items.typ == tObject || p.items.typ == tArray {
			// Elements are not JSON-decoded from strings: only top-level
			// parameters get the lax treatment.
			if _, isStr := e.(string); isStr {
				return nil, false, typeErr(name, el, article(p.items.typ), e)
			}
		}
		cv, _, err := coerce(p.items, e, el, name)
		if err != nil {
			return nil, false, err
		}
		out[i] = cv
	}
	return out, true, nil
}

func article(t ptype) string {
	switch t {
	case tInteger, tArray, tObject:
		return "an " + string(t)
	case tAny:
		return "a value"
	}
	return "a " + string(t)
}

// jsonString decodes a JSON document given as a string parameter.
func jsonString(s string) (any, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, false
	}
	if mayHoldInvalidText([]byte(t)) { // keep it refusable (rawtext.go)
		v, err := decodePreserving([]byte(t))
		if err != nil {
			return nil, false
		}
		return exactNumbers(v), true
	}
	var v any
	if err := json.Unmarshal([]byte(t), &v); err != nil {
		return nil, false
	}
	return v, true
}

// toInt accepts an integral number or a string holding one.
func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case float64:
		return floatInt(x)
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n, true
		}
		f, err := x.Float64()
		if err != nil {
			return 0, false
		}
		return floatInt(f)
	case string:
		s := strings.TrimSpace(x)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false
		}
		return floatInt(f)
	}
	return 0, false
}

// toFloat accepts a finite number or a string holding one.
func toFloat(v any) (float64, bool) {
	f, ok := jsonFloat(v)
	if s, isStr := v.(string); isStr {
		var err error
		f, err = strconv.ParseFloat(strings.TrimSpace(s), 64)
		ok = err == nil
	}
	return f, ok && !math.IsNaN(f) && !math.IsInf(f, 0)
}

func floatInt(f float64) (int64, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// toBool accepts a boolean, 0/1, or (case-insensitively) one of
// true/false/1/0/yes/no/on/off given as a string.
func toBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case float64:
		switch x {
		case 0:
			return false, true
		case 1:
			return true, true
		}
	case json.Number:
		return toBool(string(x))
	case string:
		return request.ParseBoolWord(x)
	}
	return false, false
}

func typeErr(name, label, want string, got any) *argError {
	return argErrf(name, "%s must be %s, got %s", label, want, describe(got))
}

// describe renders a rejected value briefly: its JSON type and, for
// scalars, the value itself.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string " + pyfmt.Abbrev(x)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case float64:
		return "number " + strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		return "number " + x.String()
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = "'" + s + "'"
	}
	return strings.Join(q, ", ")
}

func contains(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}
