package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRewriteGolden: each form the rewrite maps, as golden text (the input
// and the output in one, see splitGolden). Every output has the input's
// lines, so file:line stays the user's, and compiles against atomicx (one
// go build: 3.6 s at load 19).
func TestRewriteGolden(t *testing.T) {
	var goldens []string
	for _, c := range []struct{ name, golden string }{
		{"atomic types and function forms: the import alone changes",
			`package p

import (
	"fmt"
- 	"sync/atomic"
+ 	atomic "github.com/schedkit/schedkit/atomicx"
)

type R struct {
	n    atomic.Int64
	p    atomic.Pointer[int]
	v    atomic.Value
	u    atomic.Uintptr
	word uint64
}

func (r *R) F() {
	r.n.Add(1)
	atomic.AddUint64(&r.word, 1)
	_ = atomic.LoadUint64(&r.word)
	atomic.CompareAndSwapInt32(new(int32), 0, 1)
	fmt.Println(r.n.Or(4))
}
`},
		{"a named import keeps its name",
			"package p\n\n- import sa \"sync/atomic\"\n+ import sa \"github.com/schedkit/schedkit/atomicx\"\n\nvar x sa.Bool\n"},
		{"sync's blocking types move; the import becomes atomicx's",
			`package p

- import "sync"
+ import atomicx "github.com/schedkit/schedkit/atomicx"

type S struct {
- 	sync.Mutex
+ 	atomicx.Mutex
- 	rw   sync.RWMutex
+ 	rw   atomicx.RWMutex
- 	once sync.Once
+ 	once atomicx.Once
- 	wg   *sync.WaitGroup
+ 	wg   *atomicx.WaitGroup
}

- var f = sync.OnceValue[int](func() int { return 1 })
+ var f = atomicx.OnceValue[int](func() int { return 1 })
- var g = sync.OnceFunc(func() {})
+ var g = atomicx.OnceFunc(func() {})
- var h = sync.OnceValues(func() (int, error) { return 1, nil })
+ var h = atomicx.OnceValues(func() (int, error) { return 1, nil })
- var c = sync.NewCond(new(sync.Mutex))
+ var c = atomicx.NewCond(new(atomicx.Mutex))
- var d = sync.Cond{L: &S{}}
+ var d = atomicx.Cond{L: &S{}}
`},
		{"sync kept for Pool, Map and Locker: both imports, on sync's line",
			`package p

import (
- 	"sync"
+ 	"sync"; atomicx "github.com/schedkit/schedkit/atomicx"
)

var (
- 	mu   sync.Mutex
+ 	mu   atomicx.Mutex
	pool sync.Pool
	m    sync.Map
	l    sync.Locker = &mu
)
`},
		{"sync kept, import without parentheses",
			"package p\n\n- import \"sync\"\n+ import \"sync\"; import atomicx \"github.com/schedkit/schedkit/atomicx\"\n\n- var mu sync.Mutex\n+ var mu atomicx.Mutex\nvar m sync.Map\n"},
		{"a local named sync or atomic is not the import; a taken name gets another alias",
			`package p

import (
- 	"sync"
+ 	atomicx_ "github.com/schedkit/schedkit/atomicx"
- 	"sync/atomic"
+ 	atomic "github.com/schedkit/schedkit/atomicx"
)

type box struct{ Mutex int }

var atomicx, n = 1, atomic.Int32{}

func f() {
- 	var mu sync.Mutex
+ 	var mu atomicx_.Mutex
	sync := box{}
	_ = sync.Mutex
	atomic := struct{ AddInt64 int }{}
	_ = atomic.AddInt64
	_ = mu
}
`},
		{"a file that imports atomicx already: sync's names use its name, sync goes blank",
			`package p

import (
- 	"sync"
+ 	_ "sync"

	ax "github.com/schedkit/schedkit/atomicx"
)

- var mu sync.Mutex
+ var mu ax.Mutex
var n ax.Int64
`},
	} {
		in, want := splitGolden(c.golden)
		t.Run(c.name, func(t *testing.T) {
			out, edits, problems, err := rewriteSource("p.go", []byte(in))
			require.NoError(t, err)
			assert.Empty(t, problems)
			assert.NotEmpty(t, edits)
			assert.Equal(t, want, string(out))
			assert.Equal(t, strings.Count(in, "\n"), strings.Count(string(out), "\n"), "lines kept")
		})
		goldens = append(goldens, want)
	}

	// Every rewritten file compiles against atomicx in the build the
	// command uses (the normal build's names and methods are the same:
	// TestRewriteCoversTheStandardLibrary reads both): each is a package of
	// its own under testdata, removed after.
	dir, err := os.MkdirTemp("testdata", "golden")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	var pkgs []string
	for i, g := range goldens {
		d := filepath.Join(dir, fmt.Sprint("p", i))
		require.NoError(t, os.Mkdir(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "p.go"), []byte(g), 0o644))
		pkgs = append(pkgs, "./"+d)
	}
	out, err := exec.Command("go", append([]string{"build", "-tags", "schedcheck"}, pkgs...)...).CombinedOutput()
	assert.NoError(t, err, "%s", out)

	out, edits, problems, err := rewriteSource("p.go", []byte("package p\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n"))
	require.NoError(t, err)
	assert.Nil(t, out, "a file without sync/atomic or sync is left as it is")
	assert.Empty(t, edits)
	assert.Empty(t, problems)
	_, _, _, err = rewriteSource("p.go", []byte("package p\nfunc {"))
	assert.Error(t, err, "a file that does not parse")
}

// splitGolden splits a golden rewrite into the input and the output it
// must become: a line that starts with "- " is the input's alone, one that
// starts with "+ " the output's, every other line both's. The rewrite edits
// lines in place, so each "- " line is followed by its "+ " line.
func splitGolden(g string) (in, want string) {
	var i, w strings.Builder
	for _, l := range strings.SplitAfter(g, "\n") {
		switch {
		case strings.HasPrefix(l, "- "):
			i.WriteString(l[2:])
		case strings.HasPrefix(l, "+ "):
			w.WriteString(l[2:])
		default:
			i.WriteString(l)
			w.WriteString(l)
		}
	}
	return i.String(), w.String()
}

// TestRewriteReportsUnsupported: a use the rewrite cannot map is reported
// with its file:line:column and what to do.
func TestRewriteReportsUnsupported(t *testing.T) {
	src := `package p

import (
	. "sync"
	sa "sync/atomic"
)

var c Mutex
var d = sa.Int128{}
`
	_, _, problems, err := rewriteSource("p.go", []byte(src))
	require.NoError(t, err)
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	assert.Equal(t, []string{
		"p.go:4:2: a dot import of sync cannot be mapped onto atomicx: import it by name",
		"p.go:9:9: sync/atomic.Int128 has no counterpart in atomicx",
	}, got)

	var o, e strings.Builder
	code := inDir(t, "../..", func() int {
		return runExplore([]string{"./cmd/schedkit/testdata/explore/dot"}, &o, &e)
	})
	assert.Equal(t, 1, code)
	assert.Empty(t, o.String())
	assert.Equal(t, "schedkit explore: cmd/schedkit/testdata/explore/dot/dot.go:4:8: a dot import of sync/atomic cannot be mapped onto atomicx: import it by name\n", e.String())
}

// inDir runs f in dir (tests of this package run one at a time: none is
// parallel).
func inDir(t *testing.T, dir string, f func() int) int {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(dir))
	defer func() { require.NoError(t, os.Chdir(wd)) }()
	return f()
}

// exported returns the exported top-level names of the package in dir
// (types and functions; every build variant's files) and, per type, its
// exported methods.
func exported(t *testing.T, dir string) (names map[string]bool, methods map[string]map[string]bool) {
	t.Helper()
	names, methods = map[string]bool{}, map[string]map[string]bool{}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					names[d.Name.Name] = true
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if ix, ok := typ.(*ast.IndexExpr); ok {
					typ = ix.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					if methods[id.Name] == nil {
						methods[id.Name] = map[string]bool{}
					}
					methods[id.Name][d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.IsExported() {
						names[ts.Name.Name] = true
					}
				}
			}
		}
	}
	return names, methods
}

// TestRewriteCoversTheStandardLibrary: every exported name of sync/atomic
// is in atomicNames and atomicx has it, with every method sync/atomic's
// type has; every name of sync is mapped (and atomicx has it, with its
// methods), kept, or reported; so a method call on a mapped type always
// compiles. It reads the Go installation's source and atomicx's.
func TestRewriteCoversTheStandardLibrary(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	require.NoError(t, err)
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	stdAtomic, stdAtomicM := exported(t, filepath.Join(src, "sync", "atomic"))
	stdSync, stdSyncM := exported(t, filepath.Join(src, "sync"))
	ax, axM := exported(t, "../../atomicx")
	require.NotEmpty(t, stdAtomic)

	for n := range stdAtomic {
		assert.True(t, atomicNames[n], "sync/atomic.%s is not in atomicNames", n)
	}
	for n := range atomicNames {
		assert.True(t, stdAtomic[n], "atomicNames has %s, which sync/atomic does not", n)
		assert.True(t, ax[n], "atomicx has no %s", n)
		for m := range stdAtomicM[n] {
			assert.True(t, axM[n][m], "atomicx.%s has no method %s", n, m)
		}
	}
	for n := range stdSync {
		switch {
		case syncMapped[n]:
			assert.True(t, ax[n], "sync.%s is mapped, and atomicx has no %s", n, n)
			for m := range stdSyncM[n] {
				assert.True(t, axM[n][m], "atomicx.%s has no method %s, which sync.%s has", n, m, n)
			}
		case syncKept[n]:
		default:
			t.Errorf("sync.%s is neither mapped, kept nor reported", n)
		}
	}
}

// TestExploreMistakes: no package, a bad flag, a flag after the package,
// a package that does not load and one with nothing to rewrite each get
// one line.
func TestExploreMistakes(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{nil, 2, "name the package to explore"},
		{[]string{"-nosuch", "./x"}, 2, "schedkit explore -h lists the flags"},
		{[]string{"./examples/stdring", "-v"}, 2, `flag "-v" after the package`},
		{[]string{"./no/such/dir"}, 1, "no/such/dir"},
		{[]string{"./cmd/schedkit/testdata/explore/plain"}, 1, "no file imports sync/atomic or sync: nothing to rewrite"},
	} {
		var o, e strings.Builder
		code := inDir(t, "../..", func() int { return runExplore(c.args, &o, &e) })
		assert.Equal(t, c.code, code, "%v: %s", c.args, e.String())
		oneLine(t, strings.Join(c.args, " "), o.String(), e.String())
		assert.Contains(t, e.String(), c.says, c.args)
	}
	var o, e strings.Builder
	assert.Equal(t, 0, inDir(t, "../..", func() int { return runExplore([]string{"-n", "./examples/stdring"}, &o, &e) }))
	assert.Contains(t, o.String(), "examples/stdring/ring.go:"+ringLine(t, "\t\"sync/atomic\"")+": \"sync/atomic\" -> atomic \"github.com/schedkit/schedkit/atomicx\"\n")
	assert.Contains(t, o.String(), "examples/stdring/ring.go:"+ringLine(t, "sync.Mutex // serializes")+": sync -> atomicx\n")
	assert.Regexp(t, `(?m)^go test -tags schedcheck -overlay \S+overlay.json ./examples/stdring$`, o.String())

	// -rewrite: a dependency's non-test files are rewritten too, its tests
	// are not, and only the named package is tested.
	o.Reset()
	e.Reset()
	assert.Equal(t, 0, inDir(t, "../..", func() int {
		return runExplore([]string{"-n", "-tags", "stdringbug", "-rewrite", "./examples/stdring", "./cmd/schedkit/testdata/explore/plain"}, &o, &e)
	}), e.String())
	assert.Contains(t, o.String(), "examples/stdring/ring.go:"+ringLine(t, "sync.Mutex // serializes")+": sync -> atomicx\n")
	assert.NotContains(t, o.String(), "ring_test.go")
	assert.Regexp(t, `(?m)^go test -tags schedcheck,stdringbug -overlay \S+ ./cmd/schedkit/testdata/explore/plain$`, o.String())
}

// ringLine returns the number of the line of examples/stdring/ring.go
// where text (which may span lines) starts.
func ringLine(t *testing.T, text string) string {
	t.Helper()
	src, err := os.ReadFile("../../examples/stdring/ring.go")
	require.NoError(t, err)
	i := strings.Index(string(src), text)
	require.GreaterOrEqual(t, i, 0, "ring.go has no %q", text)
	return fmt.Sprint(strings.Count(string(src[:i]), "\n") + 1)
}

// TestExploreExample runs the command on examples/stdring, written on
// sync/atomic and sync only: its explorer test and its linearizability
// check against a FIFO model pass on the correct ring,
// and on the seeded bug (-tags stdringbug) fails with a trace at the
// ring's own lines and a replay line through the rewrite, which replays it.
// It skips under -short: its three runs of go test took 14 s at load 10
// and 32 s at load 20 (a warm run of the buggy variant alone 1.6 to 3.7 s
// at load 10).
func TestExploreExample(t *testing.T) {
	if testing.Short() {
		t.Skip("three runs of go test on examples/stdring, 14 s or more on a loaded machine: run without -short")
	}
	bin := buildSchedkit(t)
	start := time.Now()
	run := func(env []string, args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		require.NoError(t, err, "%s", out)
		return string(out), 0
	}
	out, code := run(nil, "explore", "./examples/stdring", "--", "-count=1", "-run", "^(TestExploreRing|TestRingIsLinearizable)$", "-v")
	require.Equal(t, 0, code, out)
	assert.Regexp(t, `explore stdring: \d{3,} executions`, out)
	assert.Regexp(t, `linearizability TestRingIsLinearizable: \d+ scenarios of 2 threads x 3 calls, \d{3,} executions`, out)
	assert.Contains(t, out, "--- PASS: TestExploreRing")
	assert.Contains(t, out, "--- PASS: TestRingIsLinearizable")

	out, code = run(nil, "explore", "-tags", "stdringbug", "./examples/stdring", "--", "-count=1", "-run", "TestExploreRing")
	require.Equal(t, 1, code, out)
	assert.Contains(t, out, "--- FAIL: TestExploreRing")
	assert.Regexp(t, `T\d store tail ← \d+\s+ring\.go:`+ringLine(t, "r.tail.Store(t + 1)\n\t\tr.slots"), out, "the early publication, at the ring's own line")
	m := regexp.MustCompile(`through the rewrite, here: SCHEDKIT_REPLAY='([^']+)' go run github.com/schedkit/schedkit/cmd/schedkit explore -tags stdringbug ./examples/stdring -- -count=1 -run '\^TestExploreRing\$'`).FindStringSubmatch(out)
	require.NotNil(t, m, out)

	out, code = run([]string{"SCHEDKIT_REPLAY=" + m[1]}, "explore", "-tags", "stdringbug", "./examples/stdring", "--", "-count=1", "-run", "^TestExploreRing$")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "replayed")
	assert.Contains(t, out, "ring.go:"+ringLine(t, "v := *r.slots"), "the replay fails where the search did: the consumer's read of the unwritten slot")
	t.Logf("three runs of the command: %v", time.Since(start).Round(10*time.Millisecond))
}
