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
