package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/cmd/schedkit/internal/demo"
	"github.com/schedkit/schedkit/executor"
)

// seqDigest is the oracle: the demo's tree digest computed sequentially,
// written apart from treeHasher (WalkDir-free recursion over ReadDir).
func seqDigest(t *testing.T, dir string) (sum [32]byte, files int) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	d := sha256.New()
	for _, de := range ents {
		p := filepath.Join(dir, de.Name())
		var kind byte
		var child [32]byte
		switch {
		case de.IsDir():
			var n int
			child, n = seqDigest(t, p)
			files += n
			kind = 'd'
		case de.Type().IsRegular():
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			child = sha256.Sum256(b)
			files++
			kind = 'f'
		default:
			continue
		}
		d.Write(append(append(append([]byte{kind}, de.Name()...), 0), child[:]...))
	}
	d.Sum(sum[:0])
	return sum, files
}

// smallTree makes a tree with nesting, an empty directory, an empty file,
// a symlink (skipped) and a file big enough to take several reads.
func smallTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, demo.GenTree(root, 95))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "empty", "deeper"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "zero"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "big"), []byte(strings.Repeat("schedkit ", 100000)), 0o644))
	require.NoError(t, os.Symlink("zero", filepath.Join(root, "link")))
	return root
}

var digestRE = regexp.MustCompile(`demo: digest ([0-9a-f]{64})`)

func demoDigest(t *testing.T, args ...string) (digest, out string) {
	t.Helper()
	var o, e strings.Builder
	require.Equal(t, 0, runDemo(args, &o, &e), "stderr: %s", e.String())
	assert.Empty(t, e.String(), "quiet: nothing on stderr")
	m := digestRE.FindStringSubmatch(o.String())
	require.NotNil(t, m, o.String())
	return m[1], o.String()
}

func TestDemoDigestIsTheSequentialHash(t *testing.T) {
	root := smallTree(t)
	want, files := seqDigest(t, root)
	for _, args := range [][]string{{"-procs", "1"}, {"-procs", "2"}, {"-procs", "4"}, {"-procs", "2", "-blocking"}} {
		got, out := demoDigest(t, append([]string{"-dir", root, "-quiet"}, args...)...)
		assert.Equal(t, hex.EncodeToString(want[:]), got, "%v", args)
		assert.Contains(t, out, "demo: hashed "+root+": 97 files,")
		assert.Contains(t, out, "(1 entries skipped")
		assert.Regexp(t, `(?m)^\s+all\s+\d+`, out, "the per-P table has a total row")
		assert.Equal(t, 97, files)
		dirs := regexp.MustCompile(`(\d+) directories`).FindStringSubmatch(out)
		tasks := demoTasksRE.FindStringSubmatch(out)
		require.True(t, dirs != nil && tasks != nil, out)
		nd, _ := strconv.Atoi(dirs[1])
		assert.Equal(t, 8, nd, "root, empty, empty/deeper, d0 and its four")
		assert.Equal(t, strconv.Itoa(97+nd), tasks[1], "a task per file and per directory")
	}
}

// The check above must notice a tree that differs in one byte, a name or
// a missing file: the digest covers contents, names and structure.
func TestDemoDigestCatchesAChangedTree(t *testing.T) {
	root := smallTree(t)
	base, _ := seqDigest(t, root)
	got, _ := demoDigest(t, "-dir", root, "-procs", "2", "-quiet")
	require.Equal(t, hex.EncodeToString(base[:]), got)

	f := filepath.Join(root, "d0", "d0", "f0.dat")
	b, err := os.ReadFile(f)
	require.NoError(t, err)
	b = append(b, 'x')
	require.NoError(t, os.WriteFile(f, b, 0o644))
	changed, _ := demoDigest(t, "-dir", root, "-procs", "2", "-quiet")
	assert.NotEqual(t, got, changed, "one byte more")

	require.NoError(t, os.Rename(f, f+".renamed"))
	renamed, _ := demoDigest(t, "-dir", root, "-procs", "2", "-quiet")
	assert.NotEqual(t, changed, renamed, "a renamed file")

	require.NoError(t, os.Remove(f+".renamed"))
	removed, _ := demoDigest(t, "-dir", root, "-procs", "2", "-quiet")
	assert.NotEqual(t, renamed, removed, "a removed file")
	want, _ := seqDigest(t, root)
	assert.Equal(t, hex.EncodeToString(want[:]), removed)
}

func TestDemoGeneratedTreeIsTheSameOnEveryRun(t *testing.T) {
	a, out := demoDigest(t, "-files", "120", "-procs", "2", "-quiet")
	b, _ := demoDigest(t, "-files", "120", "-procs", "3", "-quiet")
	assert.Equal(t, a, b)
	assert.Contains(t, out, "demo: hashed a generated tree: 120 files,")
	root := t.TempDir()
	require.NoError(t, demo.GenTree(root, 120))
	want, _ := seqDigest(t, root)
	assert.Equal(t, hex.EncodeToString(want[:]), a)
}

var demoTasksRE = regexp.MustCompile(`demo: (\d+) tasks on`)

// TestDemoTraceFile: -trace writes a runtime/trace in which `go tool
// trace` finds every task of the run as a task of schedkit's type.
func TestDemoTraceFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "demo.trace")
	_, out := demoDigest(t, "-files", "50", "-procs", "2", "-quiet", "-trace", p)
	assert.Contains(t, out, "go tool trace "+p)
	m := demoTasksRE.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	parsed, err := exec.Command("go", "tool", "trace", "-d=parsed", p).CombinedOutput()
	require.NoError(t, err, "%s", parsed)
	begins := regexp.MustCompile(`(?m) TaskBegin .*Type="`+regexp.QuoteMeta(executor.TraceTaskType)+`"$`).FindAll(parsed, -1)
	assert.Equal(t, m[1], strconv.Itoa(len(begins)), "every task the demo ran is a trace task")
}

// -prom hands the run, with its flags, to demoprom (a command of its own,
// so that this one does not import the Prometheus client); its exit code
// is the demo's.
func TestDemoPromRunsDemoprom(t *testing.T) {
	var got []string
	defer func(f func([]string, io.Writer, io.Writer) int) { runDemoprom = f }(runDemoprom)
	runDemoprom = func(args []string, stdout, _ io.Writer) int {
		got = args
		io.WriteString(stdout, "scraped\n")
		return 3
	}
	var o, e strings.Builder
	assert.Equal(t, 3, runDemo([]string{"-files", "40", "-prom", "-quiet"}, &o, &e))
	assert.Equal(t, []string{"-files", "40", "-prom", "-quiet"}, got)
	assert.Equal(t, "scraped\n", o.String())
	assert.Equal(t, 2, demo.Run(demo.Options{Files: 1, Prom: true}, &o, &e, nil), "Run without a scrape refuses -prom")
	assert.Contains(t, e.String(), "go run ./cmd/schedkit/demoprom")
}

// TestUsageNeedsNoModule: cmd/schedkit imports the standard library and the
// module's own packages only, so that the first `go run ./cmd/schedkit`
// downloads nothing (it fetched the Prometheus client, protobuf and a
// progress bar just to print the usage: 1 min 45 s cold).
func TestUsageNeedsNoModule(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, p := range strings.Fields(string(out)) {
		assert.True(t, strings.HasPrefix(p, "github.com/schedkit/schedkit/"), "cmd/schedkit imports %s", p)
	}
}

// TestDemoTableColumnsSum: every column's "all" is the sum of the rows above
// it, PARKS included: the parks of Ms that held no P have a row of their
// own ("no P"), where before the total held them and no row did.
// TestDemoMaxBlocking: with -maxblocking 2 the reads past the cap park
// their tasks (WAITS) instead of taking Ms: the run makes at most Procs +
// the cap + 1 Ms, and hashes the same tree.
func TestDemoMaxBlocking(t *testing.T) {
	root := smallTree(t)
	want, _ := demoDigest(t, "-dir", root, "-quiet", "-procs", "2")
	got, out := demoDigest(t, "-dir", root, "-quiet", "-procs", "2", "-blocking", "-maxblocking", "2")
	assert.Equal(t, want, got)
	m := regexp.MustCompile(`on 2 Ps and (\d+) Ms`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	ms, _ := strconv.Atoi(m[1])
	// An M is made only when none is idle: besides the 2 Ps' Ms and the 2
	// in reads, up to 2 more may be on their way back from a read (its slot
	// given back, not yet parked idle) when a new read hands its P off, and
	// one is new: Procs + 2*MaxBlocking + 1. Under load the way back is
	// slow (7 Ms at load 10, where a quiet run makes 4 or 5).
	assert.LessOrEqual(t, ms, 2+2*2+1, "Ms with at most 2 reads in progress:\n%s", out)
	w := regexp.MustCompile(`(?m)^\s+all(?:\s+\d+){11}\s+(\d+)\s*$`).FindStringSubmatch(out)
	require.NotNil(t, w, out)
	assert.NotEqual(t, "0", w[1], "no read waited for the cap:\n%s", out)
	var o, e strings.Builder
	assert.Equal(t, 2, runDemo([]string{"-maxblocking", "-1"}, &o, &e))
	assert.Contains(t, e.String(), "-maxblocking -1: want 0 (no cap) or more")
}

func TestDemoTableColumnsSum(t *testing.T) {
	_, out := demoDigest(t, "-files", "60", "-procs", "2", "-quiet", "-blocking")
	var header []string
	sums := map[string]uint64{}
	noPParks := ""
	for l := range strings.SplitSeq(out, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) > 0 && f[0] == "P" && len(f) > 1 && f[1] == "TASKS":
			header = f
		case header == nil || len(f) == 0:
		case f[0] == "all":
			require.Len(t, f, len(header), l)
			for i, col := range header[1:] {
				assert.Equal(t, strconv.FormatUint(sums[col], 10), f[i+1], "column %s: all is not the sum of its rows\n%s", col, out)
			}
			require.NotEmpty(t, noPParks, "no row for the Ms that parked without a P:\n%s", out)
			return
		default:
			name := f[0]
			if name == "no" { // "no P"
				f = f[1:]
				noPParks = f[10]
			}
			require.Len(t, f, len(header), l)
			for i, col := range header[1:] {
				if f[i+1] != "-" {
					n, err := strconv.ParseUint(f[i+1], 10, 64)
					require.NoError(t, err, l)
					sums[col] += n
				}
			}
		}
	}
	t.Fatalf("no table with an all row:\n%s", out)
}
