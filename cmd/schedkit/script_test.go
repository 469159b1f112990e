package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scriptEnv is the environment of a scripts/test.sh run with no jar
// reachable: HOME an empty directory, TLA2TOOLS_JAR unset. Go's caches stay
// where they are (as GOCACHE/GOMODCACHE from the environment would), so the
// run needs no network and rebuilds nothing.
func scriptEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	require.NoError(t, err)
	goenv := strings.Fields(string(out))
	require.Len(t, goenv, 3)
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "TLA2TOOLS_JAR", "SCHEDKIT_TEST_STEPS", "SCHEDKIT_TLC_RUNNER", "GOCACHE", "GOMODCACHE", "GOPATH":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+t.TempDir(), "TLA2TOOLS_JAR=", "SCHEDKIT_TEST_STEPS=tlc",
		"GOCACHE="+goenv[0], "GOMODCACHE="+goenv[1], "GOPATH="+goenv[2], "GOTOOLCHAIN=local")
	return append(env, extra...)
}

// runScript runs scripts/test.sh and returns its output, its last line and
// its exit code.
func runScript(t *testing.T, env []string) (out, last string, code int) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash:", err)
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	cmd := exec.Command(bash, filepath.Join(root, "scripts", "test.sh"))
	cmd.Env = env
	b, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	default:
		t.Fatal(err)
	}
	out = string(b)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return out, lines[len(lines)-1], code
}

// fakeRunner writes a stand-in for the schedkit binary that runs body.
func fakeRunner(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "schedkit")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
	return p
}

// TestScriptTLCStep proves how scripts/test.sh counts its TLC step: with no
// jar reachable (the README's fresh clone) as skipped, not failed; with a
// runner that fails as failed; and with `go run`, which turns the no-jar
// exit code 3 into 1 (the bug this step once had), as failed, so the first
// case would catch a return to it.
func TestScriptTLCStep(t *testing.T) {
	out, last, code := runScript(t, scriptEnv(t))
	t.Logf("no jar reachable:\n%s", out)
	assert.Equal(t, "test: 0 passed, 0 failed, 1 skipped", last)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "schedkit tlc: skipped: tlc: tla2tools.jar not found")
	assert.Contains(t, out, "-- SKIPPED: TLC")

	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	for _, tc := range []struct {
		name, body, last string
		code             int
	}{
		{"a runner that fails", "echo 'mutant Ring_mutant_X: ok (exit 0): FAIL: mutant passed'; exit 1", "test: 0 passed, 1 failed, 0 skipped", 1},
		{"a runner that crashes", "exit 2", "test: 0 passed, 1 failed, 0 skipped", 1},
		{"a runner that passes", "echo 'tlc: 27 models behaved as expected'", "test: 1 passed, 0 failed, 0 skipped", 0},
		{"go run without a jar", "cd '" + root + "' && exec go run ./cmd/schedkit \"$@\"", "test: 0 passed, 1 failed, 0 skipped", 1},
	} {
		out, last, code := runScript(t, scriptEnv(t, "SCHEDKIT_TLC_RUNNER="+fakeRunner(t, tc.body)))
		assert.Equal(t, tc.last, last, "%s:\n%s", tc.name, out)
		assert.Equal(t, tc.code, code, tc.name)
		if tc.code != 0 {
			assert.Contains(t, out, "!! FAILED: TLC", tc.name)
		}
	}
}
