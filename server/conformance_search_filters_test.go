package server_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Metadata filtering: every operator on the T-036 dataset, typed and
// case rules, nested keys, key and value validation: T-036..T-046 (C.2).

// opsDataset stores the T-036 dataset (thread "ops") and the extra rows
// (thread "ops-x") and returns id -> name.
func opsDataset(t *testing.T, env *env) map[string]string {
	t.Helper()
	names := map[string]string{}
	add := func(thread, name string, meta M) {
		args := M{"thread_id": thread, "source": "user", "text": "row " + name, "deduplicate": false}
		if meta != nil {
			args["metadata"] = meta
		}
		names[env.store(t, "alice", args)] = name
	}
	add("ops", "E1", M{"status": "active", "priority": 5, "agent_name": "gpt-4"})
	add("ops", "E2", M{"status": "pending", "priority": 3, "agent_name": "claude"})
	add("ops", "E3", M{"status": "active", "priority": 8, "agent_name": "gpt-3.5"})
	add("ops", "E4", M{"status": "completed", "priority": 1})
	add("ops", "E5", M{"status": "error", "priority": 10})
	add("ops", "E6", nil)
	for _, x := range []struct {
		name string
		meta M
	}{
		{"cafe", M{"label": "café"}},
		{"str12", M{"priority": "12"}},
		{"true", M{"flag": true}}, {"one", M{"flag": 1}}, {"strtrue", M{"flag": "true"}},
		{"null", M{"x": nil}},
		{"pct", M{"code": "5000"}}, {"abc", M{"code2": "abc"}}, {"planner", M{"role": "planner"}},
		{"tech", M{"technologies": []string{"python", "go"}}},
		{"scalar", M{"langs": "python"}}, {"object", M{"langs_obj": M{"python": 1}}},
		{"nums", M{"nums": []int{5}}}, {"numstr", M{"nums": []string{"5"}}},
		{"five", M{"count": 5}}, {"fivestr", M{"count": "5"}},
		{"dark", M{"user": M{"preferences": M{"theme": "dark"}}}},
		{"light", M{"user": M{"preferences": M{"theme": "light"}}}},
	} {
		add("ops-x", x.name, x.meta)
	}
	return names
}

func mf(key, op string, value any) M { return M{"key": key, "operator": op, "value": value} }

func TestConformanceMetadataOperators(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		names := opsDataset(t, env)
		var xs []string // every ops-x row
		for _, n := range names {
			if !strings.HasPrefix(n, "E") {
				xs = append(xs, n)
			}
		}
		slices.Sort(xs)
		allX := strings.Join(xs, " ")
		cases := []struct {
			name   string
			thread string
			args   M // metadata / metadata_filters
			want   string
		}{
			{"T-036 eq is case-insensitive", "ops", M{"metadata_filters": []M{mf("status", "eq", "ACTIVE")}}, "E1 E3"},
			{"T-036 eq case_sensitive", "ops", M{"metadata_filters": []M{{"key": "status", "operator": "eq", "value": "ACTIVE", "case_sensitive": true}}}, ""},
			{"T-036 eq case_sensitive exact", "ops", M{"metadata_filters": []M{{"key": "status", "operator": "eq", "value": "active", "case_sensitive": true}}}, "E1 E3"},
			{"T-036 folding is ASCII-only", "ops-x", M{"metadata_filters": []M{mf("label", "eq", "CAFÉ")}}, ""},
			{"T-036 ASCII letters fold", "ops-x", M{"metadata_filters": []M{mf("label", "eq", "CAFé")}}, "cafe"},
			{"T-037 gt", "ops", M{"metadata_filters": []M{mf("priority", "gt", 5)}}, "E3 E5"},
			{"T-037 gte", "ops", M{"metadata_filters": []M{mf("priority", "gte", 5)}}, "E1 E3 E5"},
			{"T-037 lt", "ops", M{"metadata_filters": []M{mf("priority", "lt", 5)}}, "E2 E4"},
			{"T-037 lte", "ops", M{"metadata_filters": []M{mf("priority", "lte", 5)}}, "E1 E2 E4"},
			{"T-037 a number never matches a stored string", "ops-x", M{"metadata_filters": []M{mf("priority", "gt", 5)}}, ""},
			{"T-037 strings compare as strings", "ops-x", M{"metadata_filters": []M{mf("priority", "gt", "10")}}, "str12"},
			{"T-038 eq string does not match a number", "ops-x", M{"metadata_filters": []M{mf("count", "eq", "5")}}, "fivestr"},
			{"T-038 eq number does not match a string", "ops-x", M{"metadata_filters": []M{mf("count", "eq", 5)}}, "five"},
			{"T-038 eq true matches only JSON true", "ops-x", M{"metadata_filters": []M{mf("flag", "eq", true)}}, "true"},
			{"T-039 ne excludes missing keys", "ops", M{"metadata_filters": []M{mf("status", "ne", "active")}}, "E2 E4 E5"},
			{"T-039 ne folds case", "ops", M{"metadata_filters": []M{mf("status", "ne", "ACTIVE")}}, "E2 E4 E5"},
			{"T-040 in", "ops", M{"metadata_filters": []M{mf("status", "in", []string{"active", "pending"})}}, "E1 E2 E3"},
			{"T-040 not_in excludes missing keys", "ops", M{"metadata_filters": []M{mf("status", "not_in", []string{"active", "pending"})}}, "E4 E5"},
			{"T-040 in numbers", "ops", M{"metadata_filters": []M{mf("priority", "in", []int{5, 10})}}, "E1 E5"},
			{"T-040 in folds case", "ops", M{"metadata_filters": []M{mf("status", "in", []string{"ACTIVE"})}}, "E1 E3"},
			{"T-041 exists", "ops", M{"metadata_filters": []M{{"key": "agent_name", "operator": "exists"}}}, "E1 E2 E3"},
			{"T-041 not_exists includes null metadata", "ops", M{"metadata_filters": []M{{"key": "agent_name", "operator": "not_exists"}}}, "E4 E5 E6"},
			{"T-041 JSON null does not exist", "ops-x", M{"metadata_filters": []M{{"key": "x", "operator": "exists"}}}, ""},
			{"T-041 JSON null counts as not_exists", "ops-x", M{"metadata_filters": []M{{"key": "x", "operator": "not_exists"}}}, allX},
			{"T-042 is_null needs the key", "ops-x", M{"metadata_filters": []M{{"key": "x", "operator": "is_null"}}}, "null"},
			{"T-042 is_not_null excludes missing", "ops", M{"metadata_filters": []M{{"key": "agent_name", "operator": "is_not_null"}}}, "E1 E2 E3"},
			{"T-042 is_not_null on null", "ops-x", M{"metadata_filters": []M{{"key": "x", "operator": "is_not_null"}}}, ""},
			{"T-043 contains is literal (%)", "ops-x", M{"metadata_filters": []M{mf("code", "contains", "50%")}}, ""},
			{"T-043 contains is literal (_)", "ops-x", M{"metadata_filters": []M{mf("code2", "contains", "a_c")}}, ""},
			{"T-043 contains", "ops-x", M{"metadata_filters": []M{mf("role", "contains", "plan")}}, "planner"},
			{"T-043 contains folds case", "ops", M{"metadata_filters": []M{mf("agent_name", "contains", "LAU")}}, "E2"},
			{"T-043 contains case_sensitive", "ops", M{"metadata_filters": []M{{"key": "agent_name", "operator": "contains", "value": "LAU", "case_sensitive": true}}}, ""},
			{"T-043 starts_with", "ops", M{"metadata_filters": []M{mf("agent_name", "starts_with", "GPT")}}, "E1 E3"},
			{"T-043 starts_with is literal", "ops-x", M{"metadata_filters": []M{mf("code", "starts_with", "5_")}}, ""},
			{"T-043 ends_with", "ops", M{"metadata_filters": []M{mf("agent_name", "ends_with", ".5")}}, "E3"},
			{"T-043 ends_with case_sensitive", "ops-x", M{"metadata_filters": []M{{"key": "role", "operator": "ends_with", "value": "NER", "case_sensitive": true}}}, ""},
			{"T-044 array_contains folds case", "ops-x", M{"metadata_filters": []M{mf("technologies", "array_contains", "PYTHON")}}, "tech"},
			{"T-044 array_contains case_sensitive", "ops-x", M{"metadata_filters": []M{{"key": "technologies", "operator": "array_contains", "value": "PYTHON", "case_sensitive": true}}}, ""},
			{"T-044 array_contains on a scalar", "ops-x", M{"metadata_filters": []M{mf("langs", "array_contains", "python")}}, ""},
			{"T-044 array_contains on an object", "ops-x", M{"metadata_filters": []M{mf("langs_obj", "array_contains", "python")}}, ""},
			{"T-044 array_contains on a missing key", "ops-x", M{"metadata_filters": []M{mf("nothing", "array_contains", "python")}}, ""},
			{"T-044 array_contains number", "ops-x", M{"metadata_filters": []M{mf("nums", "array_contains", 5)}}, "nums"},
			{"T-044 array_contains string", "ops-x", M{"metadata_filters": []M{mf("nums", "array_contains", "5")}}, "numstr"},
			{"T-045 nested key", "ops-x", M{"metadata_filters": []M{mf("user.preferences.theme", "eq", "dark")}}, "dark"},
			{"T-045 nested key, simple filter", "ops-x", M{"metadata": M{"user.preferences.theme": "light"}}, "light"},
			{"simple equality", "ops", M{"metadata": M{"status": "active"}}, "E1 E3"},
			{"simple equality, number", "ops", M{"metadata": M{"priority": 5}}, "E1"},
			{"simple equalities AND", "ops", M{"metadata": M{"status": "active", "priority": 8}}, "E3"},
			{"advanced filters AND", "ops", M{"metadata_filters": []M{mf("priority", "gte", 3), mf("status", "eq", "active")}}, "E1 E3"},
			{"simple AND advanced", "ops", M{"metadata": M{"status": "active"}, "metadata_filters": []M{mf("priority", "lt", 6)}}, "E1"},
			{"operator defaults to eq", "ops", M{"metadata_filters": []M{{"key": "status", "value": "pending"}}}, "E2"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				args := M{"thread_id": c.thread}
				for k, v := range c.args {
					args[k] = v
				}
				resp := env.search(t, "alice", args)
				if hasKey(resp, "error") {
					t.Fatalf("unexpected validation error: %s", mustJSON(resp))
				}
				var got []string
				for _, id := range resultIDs(t, resp) {
					got = append(got, names[id])
				}
				slices.Sort(got)
				wantEqual(t, "matched", strings.Join(got, " "), c.want)
			})
		}
	})
}

func TestConformanceMetadataFilterValidation(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		env.store(t, "alice", M{"thread_id": "v", "source": "user", "text": "v", "metadata": M{"status": "active"}})
		keyMsg := func(k string) string {
			return "Invalid metadata key: " + k + ". Only alphanumeric characters, dots, underscores, and hyphens are allowed."
		}
		members := make([]int, 101)
		for i := range members {
			members[i] = i
		}
		cases := []struct {
			name   string
			filter M
			want   string // substring of the single validation error; "" = any text
		}{
			{"T-045 digit segment", mf("items.0", "eq", "x"), keyMsg("items.0")},
			{"T-045 empty segment", mf("a..b", "eq", "x"), keyMsg("a..b")},
			{"T-045 injection", mf("status; DROP", "eq", "x"), keyMsg("status; DROP")},
			{"in needs a list", mf("status", "in", "active"), "Operator in requires a list value"},
			{"in needs members", mf("status", "in", []string{}), "Operator in requires a non-empty list"},
			{"T-046 in with 101 members", mf("status", "in", members), "Operator in accepts at most 100 list members, got 101; narrow the membership list"},
			{"not_in with 101 members", mf("status", "not_in", members), "at most 100"},
			{"contains needs a string", mf("status", "contains", 5), "Operator contains requires a string value"},
			{"eq needs a scalar", mf("status", "eq", []string{"a"}), "Operator eq requires a scalar value, not a list"},
			{"eq needs a value", M{"key": "status", "operator": "eq"}, "Operator eq requires a non-null scalar value"},
			{"T-046 gt refuses booleans", mf("priority", "gt", true), "Operator gt requires a numeric or string value, not a boolean"},
			{"unknown operator", mf("status", "regex", "a.*"), ""},
			{"T-046 unknown filter key", M{"key": "status", "op": "eq", "value": "active"}, ""},
			{"integer outside int64", mf("priority", "eq", json.Number("100000000000000000000")), ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				resp := env.search(t, "alice", M{"thread_id": "v", "metadata_filters": []M{c.filter}})
				wantEqual(t, "error", fmt.Sprint(resp["error"]), "Metadata filter validation failed")
				errs := strs(t, resp, "validation_errors")
				if len(errs) != 1 {
					t.Fatalf("validation_errors: got %q, want exactly one", errs)
				}
				wantPrefix(t, "validation error", errs[0], "Invalid metadata filter ")
				if c.want != "" {
					wantErrContains(t, errs[0], c.want)
				}
				wantEqual(t, "count", num(t, resp, "count"), 0)
				wantEqual(t, "results", len(arr(t, resp, "results")), 0)
			})
		}
		t.Run("simple filter key", func(t *testing.T) {
			resp := env.search(t, "alice", M{"thread_id": "v", "metadata": M{"a b": "x"}})
			wantEqual(t, "error", fmt.Sprint(resp["error"]), "Metadata filter validation failed")
			errs := strs(t, resp, "validation_errors")
			if len(errs) != 1 {
				t.Fatalf("validation_errors: got %q, want exactly one", errs)
			}
			wantErrContains(t, errs[0], "Invalid metadata key 'a b': Invalid metadata key: a b")
		})
		t.Run("simple filter values must be scalars", func(t *testing.T) {
			for _, v := range []any{[]string{"active"}, M{"a": 1}} {
				r := env.call(t, "alice", "search_context", M{"thread_id": "v", "metadata": M{"status": v}})
				if r.failed() {
					continue // refused at the boundary
				}
				resp := r.ok(t)
				wantEqual(t, "error for "+mustJSON(v), fmt.Sprint(resp["error"]), "Metadata filter validation failed")
				wantEqual(t, "count", num(t, resp, "count"), 0)
			}
		})
		t.Run("all problems are collected", func(t *testing.T) {
			resp := env.search(t, "alice", M{"thread_id": "v", "metadata": M{"a b": "x"}, "metadata_filters": []M{
				mf("items.0", "eq", "x"), mf("status", "in", "x"), mf("status", "eq", "active"),
			}})
			wantEqual(t, "validation_errors", len(strs(t, resp, "validation_errors")), 3)
		})
	})
}
