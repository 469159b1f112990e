package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunTLCExitCodes(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("TLA2TOOLS_JAR", "")
	var out, errb strings.Builder

	assert.Equal(t, exitNoJar, runTLC([]string{"-dir", t.TempDir()}, &out, &errb), "no jar: skipped")
	assert.Contains(t, errb.String(), "schedkit tlc: skipped: tlc: tla2tools.jar not found: run `go run ./cmd/schedkit tlc -install`")

	errb.Reset()
	assert.Equal(t, 2, runTLC([]string{"-only=maybe"}, &out, &errb))
	assert.Contains(t, errb.String(), "want true, false or auto")
	assert.Equal(t, 2, runTLC([]string{"-nosuchflag"}, &out, &errb))
	assert.Equal(t, 0, runTLC([]string{"-h"}, &out, &errb))

	// -install with no network: one line on stderr, exit 1, nothing installed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + l.Addr().String() + "/tla2tools.jar"
	require.NoError(t, l.Close())
	out.Reset()
	errb.Reset()
	assert.Equal(t, 1, runTLC([]string{"-install", "-url", closed}, &out, &errb))
	t.Logf("stderr: %s", errb.String())
	assert.Empty(t, out.String())
	assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line")
	assert.True(t, strings.HasPrefix(errb.String(), "schedkit tlc -install: downloading "+closed), errb.String())
	assert.Contains(t, errb.String(), "copy tla2tools.jar")
	assert.Contains(t, errb.String(), "TLA2TOOLS_JAR")
	left, _ := os.ReadDir(filepath.Join(home, ".cache", "tla"))
	assert.Empty(t, left, "no partial jar stays behind")
}

// TestRunTLCRejectsBadValues: -workers below 0, -jobs below 1, a -dir that
// does not exist and -url without -install are refused with one line and
// exit 2 (they were accepted, or said "no .cfg files"), before any jar is
// looked for; a TLA2TOOLS_JAR that is not a jar, or not TLC, says so and
// exits 3, as no jar does, where it read as a spec's failure.
func TestRunTLCRejectsBadValues(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TLA2TOOLS_JAR", "")
	missing := filepath.Join(t.TempDir(), "no", "specs")
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"-workers", "-1"}, "schedkit tlc: -workers -1: want 1 or more TLC worker threads, or 0 for one per CPU"},
		{[]string{"-jobs", "0"}, "schedkit tlc: -jobs 0: want 1 or more models checked at once"},
		{[]string{"-jobs", "-3"}, "schedkit tlc: -jobs -3: want 1 or more"},
		{[]string{"-dir", missing}, "schedkit tlc: -dir " + missing + ": the directory does not exist"},
		{[]string{"-url", "x.jar"}, "schedkit tlc: -url x.jar needs -install"},
	} {
		var out, errb strings.Builder
		assert.Equal(t, 2, runTLC(c.args, &out, &errb), c.args)
		assert.True(t, strings.HasPrefix(errb.String(), c.says), "%v: %q", c.args, errb.String())
		assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line: %q", errb.String())
		assert.NotContains(t, errb.String(), "no .cfg files")
	}
	var out, errb strings.Builder
	assert.Equal(t, 2, runVerify([]string{"-workers", "-1"}, &out, &errb))
	assert.Contains(t, errb.String(), "schedkit verify: -workers -1: want 1 or more")

	notJar := filepath.Join(t.TempDir(), "tla2tools.jar")
	require.NoError(t, os.WriteFile(notJar, []byte("<html>404</html>"), 0o644))
	t.Setenv("TLA2TOOLS_JAR", notJar)
	errb.Reset()
	assert.Equal(t, exitNoJar, runTLC([]string{"-dir", t.TempDir()}, &out, &errb))
	assert.Contains(t, errb.String(), "schedkit tlc: skipped: tlc: "+notJar+" is not a jar")
	assert.NotContains(t, errb.String(), "spec")
}
