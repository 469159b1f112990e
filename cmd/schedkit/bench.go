package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/schedkit/schedkit/internal/cmdline"
)

const benchAbout = `usage: schedkit bench [-quick] [-count N] [-run REGEXP] [-impl REGEXP] [-cpu LIST] [-benchtime D] [-out DIR] [-no-write] [-json FILE]

Runs the benchmark suite of bench/ (schedkit's executor against go f(),
ants, pond, errgroup, conc and a channel pool, workload by workload) with
a progress bar, prints per workload a table of ratios (schedkit over each
peer: the median of -count rounds run interleaved in one process, with
the range), then writes bench/RESULTS.md's generated section (between
its "schedkit bench" marker lines; the rest of the file is kept) and
bench/charts/NAME.svg per workload. -cpu runs a workload with Procs at
those of its values listed, one without at each value; -impl keeps the
impls it matches (and each workload's base); -json FILE writes every
sample and summary as JSON too, even when a run failed. A failed benchmark makes the exit
status 1 and writes nothing. -quick writes nothing unless -out is given:
its shrunk workloads check that the suite runs; they measure nothing. It
builds and runs bench/cmd/benchsuite of the checkout the current
directory is in (bench/ is a module of its own).`

const benchExample = `  go run ./cmd/schedkit bench -quick                             # does every workload run? (under a minute; writes nothing)
  go run ./cmd/schedkit bench -count 10                            # the recorded run: RESULTS.md and charts
  go run ./cmd/schedkit bench -run '^chain-scaling$' -cpu 1,2,4,8  # the run-queue experiment's curve
  OUT=/tmp/b scripts/bench16.sh                                    # the 16-core run (chain, chain-scaling, tiny, forkjoin at 1..16 Ps)`

// runBench is `schedkit bench`: it checks the flags, finds the bench
// module of the checkout and runs its suite runner with them, passing its
// exit status on. The runner is built and run rather than `go run`, which
// would turn every non-zero status into 1.
func runBench(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench", benchAbout, benchExample, stdout)
	fs.Bool("quick", false, "shrink every workload and run each impl briefly, once: checks that the suite runs (under a minute)")
	count := fs.Int("count", 5, "rounds, run interleaved in one process (1 with -quick unless given)")
	runRE := fs.String("run", "", "run only the workloads whose name matches this regexp")
	impl := fs.String("impl", "", "run only the impls whose name matches this regexp, and each workload's base (schedkit)")
	cpu := fs.String("cpu", "", "comma-separated GOMAXPROCS values: a workload with Procs runs at those of them listed (default: its values up to NumCPU), one without at each (default: the current GOMAXPROCS)")
	benchtime := fs.String("benchtime", "300ms", "time (or Nx count) per run, as go test's -benchtime (30ms with -quick unless given)")
	out := fs.String("out", "", "directory of RESULTS.md and charts/ (default: the checkout's bench/; -quick writes only where -out is given)")
	fs.Bool("no-write", false, "print the tables only; write no file")
	jsonOut := fs.String("json", "", "also write every sample and summary as JSON to this file (even with -no-write or a failed run)")
	fs.Duration("timeout", 5*time.Minute, "a run that takes longer is ended with every goroutine's stack")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "schedkit bench: "+format+" (schedkit bench -h lists the flags)\n", a...)
		return 2
	}
	if *count < 1 {
		return bad("-count %d: want at least 1", *count)
	}
	if _, err := regexp.Compile(*runRE); err != nil {
		return bad("-run %q: %v", *runRE, err)
	}
	if _, err := regexp.Compile(*impl); err != nil {
		return bad("-impl %q: %v", *impl, err)
	}
	if *cpu != "" {
		for f := range strings.SplitSeq(*cpu, ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(f)); err != nil || n < 1 {
				return bad("-cpu %q: want a comma-separated list of positive counts such as 1,2,4", *cpu)
			}
		}
	}
	if !validBenchtime(*benchtime) {
		return bad("-benchtime %q: want a duration such as 300ms or a count such as 10x", *benchtime)
	}

	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "schedkit bench:", err)
		return 1
	}
	root, err := findCheckout(cwd)
	if err != nil {
		fmt.Fprintln(stderr, "schedkit bench:", err)
		return 1
	}
	if *out != "" && !filepath.IsAbs(*out) {
		*out = filepath.Join(cwd, *out) // the runner runs in bench/
	}
	if *jsonOut != "" && !filepath.IsAbs(*jsonOut) {
		*jsonOut = filepath.Join(cwd, *jsonOut)
	}
	benchDir := filepath.Join(root, "bench")
	tmp, err := os.MkdirTemp("", "schedkit-bench")
	if err != nil {
		fmt.Fprintln(stderr, "schedkit bench:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "benchsuite")
	build := exec.Command("go", "build", "-o", bin, "./cmd/benchsuite")
	build.Dir = benchDir
	var buildOut bytes.Buffer
	build.Stdout, build.Stderr = &buildOut, &buildOut
	if err := build.Run(); err != nil {
		stderr.Write(buildOut.Bytes())
		fmt.Fprintf(stderr, "schedkit bench: building %s failed: %v (its output is above)\n", filepath.Join(benchDir, "cmd", "benchsuite"), err)
		return 1
	}

	cmd := exec.Command(bin, suiteArgs(fs.FlagSet, args)...)
	cmd.Dir = benchDir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	// Ctrl-C reaches the runner too (same process group): wait for it to
	// end and pass its status on, rather than die and leave the binary.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return ee.ExitCode()
	}
	fmt.Fprintln(stderr, "schedkit bench: the suite runner:", err)
	return 1
}

// validBenchtime reports whether s is what go test's -benchtime takes: a
// positive duration or a count Nx.
func validBenchtime(s string) bool {
	if n, ok := strings.CutSuffix(s, "x"); ok {
		c, err := strconv.Atoi(n)
		return err == nil && c > 0
	}
	d, err := time.ParseDuration(s)
	return err == nil && d > 0
}

// suiteArgs are the runner's arguments: every flag given (not the
// defaults, which the runner picks itself, -quick's among them), and the
// command line for RESULTS.md.
func suiteArgs(fs *flag.FlagSet, args []string) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) { out = append(out, "-"+f.Name+"="+f.Value.String()) })
	return append(out, "-cmdline=go run ./cmd/schedkit bench"+cmdline.Quote(args))
}

// findCheckout walks up from dir to the go.mod of module modulePath and
// returns its directory, which must hold the bench module.
func findCheckout(dir string) (string, error) {
	for d := dir; ; {
		if mod, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && goModPath(mod) == modulePath {
			if _, err := os.Stat(filepath.Join(d, "bench", "go.mod")); err != nil {
				return "", fmt.Errorf("%s has no bench/go.mod: run it from a schedkit checkout that has the bench module", d)
			}
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod of module %s in %s or above: run it from inside a schedkit checkout", modulePath, dir)
		}
		d = parent
	}
}

// goModPath is the module path a go.mod declares, or "".
func goModPath(mod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(mod))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		rest, _, _ = strings.Cut(rest, "//")
		rest = strings.TrimSpace(rest)
		if p, err := strconv.Unquote(rest); err == nil {
			return p
		}
		return rest
	}
	return ""
}
