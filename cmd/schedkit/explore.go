package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

const exploreAbout = `usage: schedkit explore [-tags LIST] [-rewrite PKGS] [-n] PACKAGE... [-- GO TEST FLAGS]

Runs the tests of a package written on sync/atomic and sync, unmodified,
under the interleaving explorer: go test -tags schedcheck with every .go
file of the package (its tests included) replaced, through go build's
-overlay, by a copy in which sync/atomic is atomicx (the same names: an
atomic.Int64 becomes an atomicx.Int64, atomic.AddInt64(&x, 1) a scheduling
point on the plain word x) and sync's Mutex, RWMutex, Cond, Once,
WaitGroup, OnceFunc, OnceValue and OnceValues are atomicx's. The files on
disk are not touched, and every line keeps its number. The package's own
tests call explore.Check with threads that call its API, as for code
written on atomicx.

A use the rewrite cannot map (a dot import, a name atomicx lacks) is
reported with its file:line, and nothing runs. sync.Pool, sync.Map and
sync.Locker stay sync's: they are not explored. Only the packages named
(and those -rewrite names) are rewritten; what they import runs on the
real sync/atomic. A failure's replay line names go test, which does not
rewrite: the line after it is the same replay through schedkit explore.

The exit status is go test's (1 when a test fails), 1 when the rewrite
finds an unsupported use or a package does not load, 2 for a bad flag.`

const exploreExample = `  go run ./cmd/schedkit explore ./examples/stdring                  # the ring's explorer test, rewritten
  go run ./cmd/schedkit explore -tags stdringbug ./examples/stdring  # its seeded bug: fails with the schedule
  go run ./cmd/schedkit explore -n ./examples/stdring               # print the rewrite; run nothing
  go run ./cmd/schedkit explore ./mypkg -- -run '^TestExplore' -v      # go test flags after --`

// listedPkg is what explore reads of `go list -json`.
type listedPkg struct {
	ImportPath                                   string
	Dir                                          string
	GoFiles, CgoFiles, TestGoFiles, XTestGoFiles []string
	Error                                        *struct{ Err string }
}

// runExplore is `schedkit explore`.
func runExplore(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("explore", exploreAbout, exploreExample, stdout)
	tags := fs.String("tags", "", "comma-separated build tags besides schedcheck (for the rewrite's go list and for go test)")
	also := fs.String("rewrite", "", "comma-separated packages (import paths or patterns) whose non-test files are rewritten too, as dependencies of the packages tested")
	dry := fs.Bool("n", false, "print every edit of the rewrite, file:line: old -> new, and the go test command; run nothing")
	var testFlags []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, testFlags = args[:i], args[i+1:]
	}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.help()
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "schedkit explore: %v (schedkit explore -h lists the flags)\n", err)
		return 2
	case fs.NArg() == 0:
		fmt.Fprintln(stderr, "schedkit explore: name the package to explore, as ./path/to/pkg (schedkit explore -h for an example)")
		return 2
	}
	pkgs := fs.Args()
	for _, p := range pkgs {
		if strings.HasPrefix(p, "-") {
			fmt.Fprintf(stderr, "schedkit explore: flag %q after the package: put explore's flags before it and go test's after -- (schedkit explore -h)\n", p)
			return 2
		}
	}
	buildTags := "schedcheck"
	if *tags != "" {
		buildTags += "," + *tags
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "schedkit explore: %v\n", err)
		return 1
	}

	tested, err := goList(buildTags, pkgs)
	if err != nil {
		return fail(err)
	}
	var deps []listedPkg
	if *also != "" {
		if deps, err = goList(buildTags, strings.Split(*also, ",")); err != nil {
			return fail(err)
		}
	}
	var files []string
	for _, p := range tested {
		for _, l := range [][]string{p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles} {
			for _, f := range l {
				files = append(files, filepath.Join(p.Dir, f))
			}
		}
	}
	for _, p := range deps {
		for _, l := range [][]string{p.GoFiles, p.CgoFiles} {
			for _, f := range l {
				files = append(files, filepath.Join(p.Dir, f))
			}
		}
	}
	slices.Sort(files)
	files = slices.Compact(files)

	tmp, err := os.MkdirTemp("", "schedkit-explore-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp)
	overlay := map[string]string{}
	var problems []rewriteProblem
	var edits []rewriteEdit
	for i, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return fail(err)
		}
		out, e, probs, err := rewriteSource(f, src)
		if err != nil {
			return fail(err)
		}
		problems = append(problems, probs...)
		if out == nil {
			continue
		}
		edits = append(edits, e...)
		dst := filepath.Join(tmp, fmt.Sprintf("%d_%s", i, filepath.Base(f)))
		if err := os.WriteFile(dst, out, 0o644); err != nil {
			return fail(err)
		}
		overlay[f] = dst
	}
	cwd, _ := os.Getwd()
	rel := func(pos token.Position) token.Position {
		if r, err := filepath.Rel(cwd, pos.Filename); err == nil && !strings.HasPrefix(r, "..") {
			pos.Filename = r
		}
		return pos
	}
	for _, p := range problems {
		p.Pos = rel(p.Pos)
		fmt.Fprintf(stderr, "schedkit explore: %s\n", p)
	}
	if len(problems) > 0 {
		return 1
	}
	if len(overlay) == 0 {
		return fail(fmt.Errorf("%s: no file imports sync/atomic or sync: nothing to rewrite (a package written on atomicx runs under go test -tags schedcheck as it is)", strings.Join(pkgs, " ")))
	}
	ov, err := json.Marshal(struct{ Replace map[string]string }{overlay})
	if err != nil {
		return fail(err)
	}
	ovPath := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		return fail(err)
	}
	goArgs := append([]string{"test", "-tags", buildTags, "-overlay", ovPath}, testFlags...)
	goArgs = append(goArgs, pkgs...)
	if *dry {
		for _, e := range edits {
			pos := rel(e.Pos)
			fmt.Fprintf(stdout, "%s:%d: %s -> %s\n", pos.Filename, pos.Line, e.Old, e.New)
		}
		fmt.Fprintf(stdout, "go %s\n", strings.Join(goArgs, " "))
		return 0
	}

	cmd := exec.Command("go", goArgs...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, stderr
	done := make(chan struct{})
	go func() {
		defer close(done)
		replayThrough(pr, stdout, exploreReplay(*tags, *also, pkgs))
	}()
	err = cmd.Run()
	pw.Close()
	<-done
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode()
	case err != nil:
		return fail(err)
	}
	return 0
}

// goList lists pkgs with tags, failing on a package that does not load.
func goList(tags string, pkgs []string) ([]listedPkg, error) {
	cmd := exec.Command("go", append([]string{"list", "-e", "-json", "-tags", tags}, pkgs...)...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v: %s", strings.Join(pkgs, " "), err, strings.TrimSpace(errOut.String()))
	}
	var list []listedPkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPkg
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list: %v", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("%s: %s", p.ImportPath, strings.TrimSpace(p.Error.Err))
		}
		list = append(list, p)
	}
	return list, nil
}

// replayLine is the explorer's replay line (explore.replayCommand): the
// environment, the build tags, -short and the test pattern.
var replayLine = regexp.MustCompile(`in the package directory: (.*)go test -tags \S+( -short)? -count=1 -run ('[^']*') \.\s*$`)

// exploreReplay returns the replay line's counterpart through the rewrite,
// given the environment, -short and the -run pattern.
func exploreReplay(tags, also string, pkgs []string) func(env, short, run string) string {
	var flags string
	if tags != "" {
		flags += " -tags " + tags
	}
	if also != "" {
		flags += " -rewrite " + also
	}
	return func(env, short, run string) string {
		return fmt.Sprintf("through the rewrite, here: %sgo run github.com/schedkit/schedkit/cmd/schedkit explore%s %s --%s -count=1 -run %s",
			env, flags, strings.Join(pkgs, " "), short, run)
	}
}

// replayThrough copies go test's output to w and follows each replay line
// with its counterpart through schedkit explore, at the same indent.
func replayThrough(r io.Reader, w io.Writer, through func(env, short, run string) string) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		io.WriteString(w, line)
		if m := replayLine.FindStringSubmatchIndex(line); m != nil {
			indent := line[:m[0]]
			fmt.Fprintf(w, "%s%s\n", indent, through(line[m[2]:m[3]], submatch(line, m, 2), line[m[6]:m[7]]))
		}
		if err != nil {
			io.Copy(w, br)
			return
		}
	}
}

func submatch(s string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}
