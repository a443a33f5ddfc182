package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/contextd/contextd"
)

// runCLI runs the testable main with env as the whole environment.
func runCLI(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, lookup, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestHelpDoesNothingElse: every command answers -h/--help with its usage
// on stdout and exit 0, and does nothing else: no database is created or
// re-embedded.
func TestHelpDoesNothingElse(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ctx.db")
	env := map[string]string{"DB_PATH": db, "HOME": t.TempDir()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-h"}, usage},
		{[]string{"--help"}, usage},
		{[]string{"-help"}, usage},
		{[]string{"help"}, usage},
		{[]string{"help", "--help"}, usage},
		{[]string{"version", "-h"}, versionUsage},
		{[]string{"health", "--help"}, healthUsage},
		{[]string{"version", "--help"}, versionUsage},
		{[]string{"reembed", "-h"}, reembedUsage},
		{[]string{"reembed", "--help"}, reembedUsage},
		{[]string{"migrate", "-h"}, migrateUsage},
		{[]string{"migrate", "reembed", "--help"}, reembedUsage},
		{[]string{"eval", "-h"}, evalUsage},
		{[]string{"eval", "--help"}, evalUsage},
		{[]string{"eval", "cranfield", "-h"}, evalUsage},
		{[]string{"eval", "cranfield", "--help"}, evalUsage},
		{[]string{"eval", "paraphrase", "-h"}, evalUsage},
	} {
		code, stdout, stderr := runCLI(t, env, tc.args...)
		if code != exitOK || stdout != tc.want || stderr != "" {
			t.Errorf("contextd %s: exit %d, stdout %q, stderr %q; want exit 0 and the usage", strings.Join(tc.args, " "), code, stdout, stderr)
		}
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("a help request touched the database %s: %v", db, err)
	}
}

// TestUnexpectedArgumentsRefused: a flag or an operand a command does not
// take exits 2 with the problem and the command's usage on stderr, and
// nothing on stdout.
func TestUnexpectedArgumentsRefused(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ctx.db")
	env := map[string]string{"DB_PATH": db, "HOME": t.TempDir()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "contextd: flag provided but not defined: -bogus\n" + usage},
		{[]string{"serve"}, "contextd: unknown command \"serve\"\n" + usage},
		{[]string{"help", "me"}, "contextd help: unexpected argument \"me\"\n" + usage},
		{[]string{"version", "now"}, "contextd version: unexpected argument \"now\"\n" + versionUsage},
		{[]string{"health", "now"}, "contextd health: unexpected argument \"now\"\n" + healthUsage},
		{[]string{"version", "-x"}, "contextd version: flag provided but not defined: -x\n" + versionUsage},
		{[]string{"--version", "now"}, "contextd: flag provided but not defined: -version\n" + usage},
		{[]string{"reembed", "all"}, "contextd reembed: unexpected argument \"all\"\n" + reembedUsage},
		{[]string{"reembed", "--force"}, "contextd reembed: flag provided but not defined: -force\n" + reembedUsage},
		{[]string{"migrate"}, "contextd migrate: a subcommand is required\n" + migrateUsage},
		{[]string{"migrate", "--force"}, "contextd migrate: flag provided but not defined: -force\n" + migrateUsage},
		{[]string{"migrate", "squash"}, "contextd migrate: unknown subcommand \"squash\"\n" + migrateUsage},
		{[]string{"migrate", "compress", "all"}, "contextd migrate compress: unexpected argument \"all\"\n" + migrateUsage},
		{[]string{"migrate", "reembed", "all"}, "contextd migrate reembed: unexpected argument \"all\"\n" + reembedUsage},
		{[]string{"eval"}, "contextd eval: missing the collection to evaluate\n" + evalUsage},
		{[]string{"eval", "trec"}, "contextd eval: unknown collection \"trec\"\n" + evalUsage},
		{[]string{"eval", "cranfield", "extra"}, "contextd eval: unexpected argument \"extra\"\n" + evalUsage},
		{[]string{"eval", "cranfield", "-data"}, "contextd eval: flag needs an argument: -data\n" + evalUsage},
		{[]string{"eval", "paraphrase", "extra"}, "contextd eval: unexpected argument \"extra\"\n" + evalUsage},
	} {
		code, stdout, stderr := runCLI(t, env, tc.args...)
		if code != exitUsage || stdout != "" || stderr != tc.want {
			t.Errorf("contextd %s:\n exit %d, stdout %q\n stderr %q\nwant exit 2 and stderr %q", strings.Join(tc.args, " "), code, stdout, stderr, tc.want)
		}
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("a refused command touched the database %s: %v", db, err)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}, {"-v"}} {
		code, stdout, stderr := runCLI(t, nil, args...)
		lines := strings.Split(stdout, "\n")
		if code != exitOK || stderr != "" || len(lines) != 5 || lines[0] != "contextd "+contextd.Version ||
			!strings.HasPrefix(lines[1], "module:   ") || !strings.HasPrefix(lines[2], "revision: ") ||
			lines[3] != "go:       "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH {
			t.Errorf("contextd %v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestDBPathDirectoryExits78: DB_PATH naming a directory stops serve and
// reembed with exit 78 and a message naming the path.
func TestDBPathDirectoryExits78(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	want := "contextd: configuration error: invalid configuration: DB_PATH=\"" + dir + "\": " + dir + " is a directory; give a file path\n"
	for _, args := range [][]string{nil, {"reembed"}, {"migrate", "reembed"}} {
		code, stdout, stderr := runCLI(t, map[string]string{"DB_PATH": dir}, args...)
		if code != exitConfig || stdout != "" || stderr != want {
			t.Errorf("contextd %v with DB_PATH a directory: exit %d, stdout %q\n stderr %q\nwant %q", args, code, stdout, stderr, want)
		}
	}
}

// TestPlannedVariableExits78: a variable of a feature not built yet is
// validated at start-up like any other.
func TestPlannedVariableExits78(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DB_PATH": filepath.Join(t.TempDir(), "ctx.db"), "OLLAMA_AUTO_PULL": "sometimes"}
	code, _, stderr := runCLI(t, env)
	want := "contextd: configuration error: invalid configuration: OLLAMA_AUTO_PULL=\"sometimes\": must be a boolean: true, false, 1, 0, yes, no, on or off\n"
	if code != exitConfig || stderr != want {
		t.Fatalf("exit %d, stderr %q; want 78 and %q", code, stderr, want)
	}
}

// TestUnknownDisabledToolWarns: a DISABLED_TOOLS name matching no tool is
// reported on stderr at the default LOG_LEVEL; the planned sync and
// knowledge tools are known names and are not.
func TestUnknownDisabledToolWarns(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"DB_PATH":        filepath.Join(t.TempDir(), "ctx.db"),
		"DISABLED_TOOLS": "grep_contxt, plan_context_sync,SEARCH_KNOWLEDGE,container_create,delete_context",
	}
	code, stdout, stderr := runCLI(t, env)
	if code != exitOK || stdout != "" {
		t.Fatalf("serve: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	var warnings []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "warning") {
			warnings = append(warnings, line)
		}
	}
	want := `contextd: warning: DISABLED_TOOLS names unknown tool "grep_contxt"; it matches no tool and is ignored`
	if len(warnings) != 1 || warnings[0] != want {
		t.Fatalf("warnings %q, want exactly %q", warnings, want)
	}
	if !strings.Contains(stderr, "; 28 tools\n") {
		t.Fatalf("start-up line should count 28 tools (32 less delete_context, plan_context_sync, search_knowledge and container_create): %q", stderr)
	}
}
