package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// built is the command, built once for every test that needs the real
// binary (exit codes through os.Exit, output through the real streams): a
// build per test cost 20 s each on a loaded machine.
var built struct {
	once sync.Once
	dir  string
	bin  string
	out  []byte
	err  error
}

// TestMain removes the built command after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildSchedkit returns the path of the command, building it on first use.
func buildSchedkit(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "schedkit-cli-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "schedkit")
		built.out, built.err = exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput()
	})
	require.NoError(t, built.err, "%s", built.out)
	return built.bin
}

func runBin(t *testing.T, bin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if env != nil {
		cmd.Env = env
	}
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return o.String(), e.String(), code
}

// oneLine asserts the rule for a mistake: exactly one line on stderr,
// naming the command, and nothing on stdout.
func oneLine(t *testing.T, what, stdout, stderr string) {
	t.Helper()
	assert.Empty(t, stdout, what)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "%s: one line, got %q", what, stderr)
	assert.True(t, strings.HasPrefix(stderr, "schedkit"), "%s: %q", what, stderr)
}

// TestEveryCommandHasHelpWithAnExample runs the built command: -h of each
// subcommand exits 0 and shows an example line, and so does schedkit -h.
func TestEveryCommandHasHelpWithAnExample(t *testing.T) {
	bin := buildSchedkit(t)
	for _, cmd := range []string{"verify", "demo", "trace", "tlc", "bench", "explore"} {
		require.NotNil(t, commands[cmd], cmd)
		out, errOut, code := runBin(t, bin, nil, cmd, "-h")
		assert.Equal(t, 0, code, cmd)
		assert.Empty(t, errOut, cmd)
		assert.Contains(t, out, "go run ./cmd/schedkit "+cmd, "%s -h shows an example", cmd)
		assert.Contains(t, out, "-", cmd)
	}
	out, _, code := runBin(t, bin, nil, "-h")
	assert.Equal(t, 0, code)
	for _, cmd := range []string{"verify", "demo", "trace", "tlc", "bench", "explore"} {
		assert.Contains(t, out, "\n  "+cmd+" ", "usage lists %s", cmd)
	}
	assert.Contains(t, out, "example:")
}

// TestMistakesGetOneLine: an unknown command, a bad flag, a stray
// argument, a missing directory, an unwritable output and a missing jar
// each get one line on stderr and a non-zero exit.
func TestMistakesGetOneLine(t *testing.T) {
	bin := buildSchedkit(t)
	noDir := filepath.Join(t.TempDir(), "missing", "x")
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"frobnicate"}, 2, "unknown command \"frobnicate\": want one of verify, demo, trace, tlc"},
		{[]string{}, 2, ""},
		{[]string{"verify", "-nosuch"}, 2, "schedkit verify -h lists the flags"},
		{[]string{"verify", "-run", "("}, 2, "-run \"(\""},
		{[]string{"verify", "extra"}, 2, "unexpected argument \"extra\""},
		{[]string{"demo", "-procs", "x"}, 2, "schedkit demo -h"},
		{[]string{"demo", "-procs", "-1"}, 2, "want 1..256"},
		{[]string{"demo", "-dir", noDir}, 1, "pass an existing directory"},
		{[]string{"demo", "-files", "10", "-trace", noDir}, 1, "pass a path in a writable directory"},
		{[]string{"tlc", "-nosuch"}, 2, "schedkit tlc -h lists the flags"},
		{[]string{"tlc", "-only=maybe"}, 2, "want true, false or auto"},
		{[]string{"trace", "-nosuch"}, 2, "schedkit trace"},
		{[]string{"trace", "-o", noDir}, 1, "writable path"},
	} {
		out, errOut, code := runBin(t, bin, nil, c.args...)
		assert.Equal(t, c.code, code, "%v: %s", c.args, errOut)
		if len(c.args) == 0 {
			assert.Contains(t, errOut, "usage: schedkit <command>", "no command: the usage")
			continue
		}
		oneLine(t, strings.Join(c.args, " "), out, errOut)
		assert.Contains(t, errOut, c.says, c.args)
	}

	// No jar: tlc says how to get one, on one line, and exits exitNoJar.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "TLA2TOOLS_JAR=") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+t.TempDir(), "TLA2TOOLS_JAR=")
	out, errOut, code := runBin(t, bin, env, "tlc", "-dir", t.TempDir())
	assert.Equal(t, exitNoJar, code)
	oneLine(t, "tlc without a jar", out, errOut)
	assert.Contains(t, errOut, "schedkit tlc -install")
	_, errOut, code = runBin(t, bin, nil, "verify", "-run", "no such check at all", "-tla=false")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "matches no check")
}
