package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/internal/cmdline"
)

// Every bad flag gets one line naming it and exit 2, before anything is
// built or run.
func TestBenchFlagErrors(t *testing.T) {
	t.Chdir(t.TempDir()) // no checkout here: a flag error must come first
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"-nosuch"}, "flag provided but not defined: -nosuch (schedkit bench -h lists the flags)"},
		{[]string{"-count", "0"}, "-count 0: want at least 1"},
		{[]string{"-count", "x"}, `invalid value "x" for flag -count`},
		{[]string{"-run", "("}, `-run "(": error parsing regexp`},
		{[]string{"-impl", "("}, `-impl "(": error parsing regexp`},
		{[]string{"-cpu", "1,,2"}, `-cpu "1,,2": want a comma-separated list`},
		{[]string{"-cpu", "-1"}, `-cpu "-1"`},
		{[]string{"-benchtime", "soon"}, `-benchtime "soon": want a duration`},
		{[]string{"-benchtime", "0x"}, `-benchtime "0x"`},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		var out, errOut bytes.Buffer
		assert.Equal(t, 2, runBench(c.args, &out, &errOut), "%v", c.args)
		oneLine(t, strings.Join(c.args, " "), out.String(), errOut.String())
		assert.Contains(t, errOut.String(), c.says, "%v", c.args)
		assert.True(t, strings.HasPrefix(errOut.String(), "schedkit bench: "), errOut.String())
	}
	var out bytes.Buffer
	assert.Equal(t, 0, runBench([]string{"-h"}, &out, io.Discard))
	assert.Contains(t, out.String(), "go run ./cmd/schedkit bench -quick ")
	assert.Contains(t, out.String(), "-cpu string")
	// The dispatcher knows it.
	out.Reset()
	assert.Equal(t, 0, run([]string{"bench", "-h"}, &out, io.Discard))
	assert.Contains(t, out.String(), "usage: schedkit bench")
	out.Reset()
	run([]string{"-h"}, &out, io.Discard)
	assert.Contains(t, out.String(), "\n  bench [")
}

func TestValidBenchtime(t *testing.T) {
	for s, want := range map[string]bool{"300ms": true, "2s": true, "10x": true, "1x": true,
		"0s": false, "-1s": false, "0x": false, "x": false, "ax": false, "": false, "soon": false} {
		assert.Equal(t, want, validBenchtime(s), "%q", s)
	}
}

// writeMod writes a go.mod declaring module path in dir.
func writeMod(t *testing.T, dir, path string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("// a comment\nmodule "+path+"\n\ngo 1.26\n"), 0o644))
}

// findCheckout walks up past other modules (bench/ is one) to schedkit's
// go.mod, and says in one line what to do where there is none.
func TestFindCheckout(t *testing.T) {
	root := t.TempDir()
	writeMod(t, root, modulePath)
	writeMod(t, filepath.Join(root, "bench"), modulePath+"/bench")
	deep := filepath.Join(root, "bench", "cmd", "benchsuite")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	for _, start := range []string{root, filepath.Join(root, "bench"), deep} {
		got, err := findCheckout(start)
		require.NoError(t, err, start)
		assert.Equal(t, root, got, start)
	}

	other := t.TempDir()
	writeMod(t, other, "example.com/other")
	_, err := findCheckout(other)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "run it from inside a schedkit checkout")
	assert.NotContains(t, err.Error(), "\n")

	noBench := t.TempDir()
	writeMod(t, noBench, modulePath)
	_, err = findCheckout(noBench)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "has no bench/go.mod")

	// Outside a checkout the command says so in one line and exits 1.
	t.Chdir(other)
	var out, errOut bytes.Buffer
	assert.Equal(t, 1, runBench([]string{"-quick"}, &out, &errOut))
	oneLine(t, "bench outside a checkout", out.String(), errOut.String())
	assert.Contains(t, errOut.String(), "run it from inside a schedkit checkout")
}

func TestGoModPath(t *testing.T) {
	for mod, want := range map[string]string{
		"module github.com/schedkit/schedkit\n":                       "github.com/schedkit/schedkit",
		"// x\n\nmodule \"github.com/schedkit/schedkit\" // quoted\n": "github.com/schedkit/schedkit",
		"module\tgithub.com/schedkit/schedkit/bench\n":                "github.com/schedkit/schedkit/bench",
		"modules x\n": "",
		"go 1.26\n":   "",
	} {
		assert.Equal(t, want, goModPath([]byte(mod)), "%q", mod)
	}
}

// The runner gets the flags given (not the defaults, which it picks with
// -quick in mind), -out made absolute, and the command line to record.
func TestSuiteArgs(t *testing.T) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.Bool("quick", false, "")
	fs.Int("count", 5, "")
	fs.String("run", "", "")
	out := fs.String("out", "", "")
	args := []string{"-quick", "-run", "tiny|chain", "-out", "x"}
	require.NoError(t, fs.Parse(args))
	*out = "/abs/x"
	assert.Equal(t, []string{"-out=/abs/x", "-quick=true", "-run=tiny|chain",
		"-cmdline=go run ./cmd/schedkit bench -quick -run 'tiny|chain' -out x"}, suiteArgs(fs, args))
	assert.Equal(t, ` 'it'\''s' a`, cmdline.Quote([]string{"it's", "a"}))
}

// The real thing: the runner is built in the checkout's bench module, a
// -run matching nothing comes back as the runner's exit 2 (the status is
// passed on, not go run's 1), and one real workload runs -quick. Skipped
// under -short: the first build of the bench module takes a while.
func TestBenchRunsTheSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the bench module's suite runner")
	}
	var out, errOut bytes.Buffer
	code := runBench([]string{"-run", "^no-such-workload$", "-no-write"}, &out, &errOut)
	require.Equal(t, 2, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	m := regexp.MustCompile(`the workloads: ([^,\n]+)`).FindStringSubmatch(errOut.String())
	require.NotNil(t, m, "the runner lists the workloads: %s", errOut.String())
	name := m[1]

	out.Reset()
	errOut.Reset()
	code = runBench([]string{"-quick", "-no-write", "-run", "^" + regexp.QuoteMeta(name) + "$"}, &out, &errOut)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	assert.Contains(t, out.String(), "command: go run ./cmd/schedkit bench -quick -no-write -run")
	assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(name)+`: .*GOMAXPROCS \d+$`, out.String())
	assert.Regexp(t, `(?m)^  schedkit +\S+ +\S+\.\.\S+ +base`, out.String())
	assert.Contains(t, errOut.String(), "benchsuite: [1/", "progress lines, stderr being no terminal")
}
