package tlc

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrNoJar means that tla2tools.jar was not found.
var ErrNoJar = errors.New("tlc: tla2tools.jar not found: run `go run ./cmd/schedkit tlc -install`, " +
	"set TLA2TOOLS_JAR to its path, or put tla2tools.jar from the TLA+ releases " +
	"(https://github.com/tlaplus/tlaplus/releases) at ~/.cache/tla/tla2tools.jar")

// ErrNoJava means that no java binary was found to run TLC with.
var ErrNoJava = errors.New("tlc: java not found: install a Java runtime (11 or later) " +
	"and put java on PATH, or set JAVA_HOME")

// JarEnv is the environment variable that names tla2tools.jar.
const JarEnv = "TLA2TOOLS_JAR"

// FindJar returns the path of tla2tools.jar: $TLA2TOOLS_JAR when set, else
// ~/.cache/tla/tla2tools.jar. It returns an error wrapping ErrNoJar when the
// file is not there.
func FindJar() (string, error) {
	if p := os.Getenv(JarEnv); p != "" {
		if isFile(p) {
			return p, nil
		}
		return "", fmt.Errorf("%w (%s=%q is not a file)", ErrNoJar, JarEnv, p)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%w (no home directory: %v)", ErrNoJar, err)
	}
	p := filepath.Join(home, ".cache", "tla", "tla2tools.jar")
	if isFile(p) {
		return p, nil
	}
	return "", ErrNoJar
}

// FindJava returns the java binary: $JAVA_HOME/bin/java when that exists,
// else java on PATH. It returns an error wrapping ErrNoJava otherwise.
func FindJava() (string, error) {
	if h := os.Getenv("JAVA_HOME"); h != "" {
		p := filepath.Join(h, "bin", "java")
		if isFile(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", ErrNoJava
	}
	return p, nil
}

// tlcClass is the entry a jar must hold to run tlc2.TLC.
const tlcClass = "tlc2/TLC.class"

// badJarError is CheckJar's error: the jar FindJar found cannot be TLC. It
// wraps ErrNoJar, so that it counts as TLC missing (verify's skipped row,
// tlc's exit 3), not as a spec's failure.
type badJarError struct{ path, why string }

func (e *badJarError) Error() string {
	return fmt.Sprintf("tlc: %s is %s: point %s at tla2tools.jar from the TLA+ releases "+
		"(https://github.com/tlaplus/tlaplus/releases), or run `go run ./cmd/schedkit tlc -install`", e.path, e.why, JarEnv)
}

func (e *badJarError) Unwrap() error { return ErrNoJar }

// CheckJar reports whether the file at path is a jar that holds TLC
// (tlc2/TLC.class): without it java fails with "could not find or load main
// class" on every model, which read as a spec error. The error wraps
// ErrNoJar and says "not a jar" or "not TLC".
func CheckJar(path string) error {
	z, err := zip.OpenReader(path)
	if err != nil {
		return &badJarError{path, fmt.Sprintf("not a jar (%v)", err)}
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name == tlcClass {
			return nil
		}
	}
	return &badJarError{path, "a jar but not TLC (it has no " + tlcClass + ")"}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Model is one config to check.
type Model struct {
	Name   string // the config's base name: "Ring" or "Ring_mutant_StealNoCAS"
	Spec   string // the spec's module name: "Ring"
	Mutant string // the mutant's name, "" for a model that must pass
	Config string // path of the .cfg
	File   string // path of the spec's .tla
	Long   bool   // a <Spec>_long config: run only in long mode
	Expect string // a mutant's `\* Expect:` name: what alone must reject it; "" when none
}

// javaArgs is the JVM's command line for model m. A mutant's run stops at its first
// violation, within a few thousand states, so most of it is the JVM
// starting: there it compiles with C1 alone (-XX:TieredStopAtLevel=1),
// which cut a small mutant's run from 2.6 to 1.8 s on the 2-vCPU VM. A
// model that must pass explores every state, and C2 pays there: Steal took
// 18.8 s with both compilers and 23.5 s with C1 alone.
//
// The young generation is fixed at 64 MB (-Xmn64m): left to itself,
// the parallel collector grew it towards a third of a default heap of a
// quarter of the machine's memory, and the page faults of touching it were
// a sixth of a model's CPU (Ring: 24.3 s of CPU, 1.8 GB resident, against
// 18.4 s and 0.35 GB; GlobalQ 13.4 s against 10.5 s). The heap's maximum
// stays the JVM's default.
//
// A model that must pass checks its temporal properties once, on the
// complete state space (-lncheck final), not also at each progress report
// while it runs: those checks can only find a violation sooner, and the
// final one finds every violation they would (a mutant keeps them: its
// liveness violation is found before the whole space is explored).
func javaArgs(m Model, jar string, workers int, meta, cfg, spec string) []string {
	args := []string{"-XX:+UseParallelGC", "-Xmn64m"}
	if m.ExpectReject() {
		args = append(args, "-XX:TieredStopAtLevel=1")
	}
	args = append(args, "-cp", jar, "tlc2.TLC",
		"-workers", strconv.Itoa(workers), "-cleanup", "-noGenerateSpecTE")
	if !m.ExpectReject() {
		args = append(args, "-lncheck", "final")
	}
	return append(args, "-metadir", meta, "-config", cfg, spec)
}

// ExpectReject reports whether TLC must reject the model: it is a mutant.
func (m Model) ExpectReject() bool { return m.Mutant != "" }

// Models lists the models in dir, sorted by name: every <Spec>.cfg,
// <Spec>_mutant_<Name>.cfg, <Spec>_long.cfg and <Spec>_long_mutant_<Name>.cfg,
// long ones included (Select picks a mode's). It fails if a config has no
// <Spec>.tla beside it, its name is malformed or its Expect line is wrong
// (ParseExpect, or a name the config does not check), so that a config is
// never silently skipped or misjudged.
func Models(dir string) ([]Model, error) {
	if fi, err := os.Stat(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("tlc: the specs' directory %s does not exist", dir)
		}
		return nil, fmt.Errorf("tlc: the specs' directory: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("tlc: %s is not a directory: want the specs' directory", dir)
	}
	cfgs, err := filepath.Glob(filepath.Join(dir, "*.cfg"))
	if err != nil {
		return nil, err
	}
	var ms []Model
	for _, cfg := range cfgs {
		name := strings.TrimSuffix(filepath.Base(cfg), ".cfg")
		spec, mutant, long, err := parseName(name)
		if err != nil {
			return nil, fmt.Errorf("tlc: %s: %w", cfg, err)
		}
		file := filepath.Join(dir, spec+".tla")
		if !isFile(file) {
			return nil, fmt.Errorf("tlc: %s: spec %s not found", cfg, file)
		}
		text, err := os.ReadFile(cfg)
		if err != nil {
			return nil, fmt.Errorf("tlc: %w", err)
		}
		m := Model{Name: name, Spec: spec, Mutant: mutant, Config: cfg, File: file, Long: long}
		if longOnlyRE.MatchString(string(text)) {
			if mutant == "" {
				return nil, fmt.Errorf(`tlc: %s: a "\* Long only:" line on a model that must pass: name it <Spec>_long.cfg`, cfg)
			}
			m.Long = true
		}
		if m.Expect, err = ParseExpect(string(text)); err == nil {
			err = checkExpect(m, string(text))
		}
		if err != nil {
			return nil, fmt.Errorf("tlc: %s: %w", cfg, err)
		}
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b Model) int { return strings.Compare(a.Name, b.Name) })
	return ms, nil
}

// Outcome is what TLC's exit code says happened.
type Outcome string

// The outcomes, after TLC's exit codes.
const (
	OutcomeOK         Outcome = "ok"         // 0: no violation
	OutcomeAssumption Outcome = "assumption" // 10: an ASSUME is false or failed to evaluate
	OutcomeDeadlock   Outcome = "deadlock"   // 11
	OutcomeSafety     Outcome = "safety"     // 12: an invariant
	OutcomeLiveness   Outcome = "liveness"   // 13: a temporal or action property
	OutcomeAssert     Outcome = "assert"     // 14: an Assert in the spec
	OutcomeError      Outcome = "error"      // anything else: parse, semantic, evaluation, crash
)

// OutcomeOf maps a TLC exit code to its outcome.
func OutcomeOf(exitCode int) Outcome {
	switch exitCode {
	case 0:
		return OutcomeOK
	case 10:
		return OutcomeAssumption
	case 11:
		return OutcomeDeadlock
	case 12:
		return OutcomeSafety
	case 13:
		return OutcomeLiveness
	case 14:
		return OutcomeAssert
	}
	return OutcomeError
}

// Rejects reports whether the outcome is a violation found while exploring
// behaviours, the only way a mutant counts as rejected.
func (o Outcome) Rejects() bool {
	switch o {
	case OutcomeDeadlock, OutcomeSafety, OutcomeLiveness, OutcomeAssert:
		return true
	}
	return false
}

// Stats is what Parse finds in TLC's output.
type Stats struct {
	Generated int64  // states generated
	Distinct  int64  // distinct states found
	Depth     int    // depth of the state graph search
	Violated  string // the invariant or property TLC names as violated, or ""
	Counted   bool   // whether the states line was found
}

var (
	statesRE   = regexp.MustCompile(`(?m)^([\d,]+) states generated, ([\d,]+) distinct states found`)
	depthRE    = regexp.MustCompile(`(?m)^The depth of the complete state graph search is (\d+)`)
	violatedRE = regexp.MustCompile(`(?m)^Error: (?:Invariant|Action property) (\S+) is violated`)
)

// Parse reads the final counts, the depth and the name of a violated
// invariant or action property from TLC's output. Progress lines, which
// carry running totals with thousands separators, are not the final counts:
// the last match wins.
func Parse(out string) Stats {
	var s Stats
	if m := lastMatch(statesRE, out); m != nil {
		s.Generated = atoi64(m[1])
		s.Distinct = atoi64(m[2])
		s.Counted = true
	}
	if m := lastMatch(depthRE, out); m != nil {
		s.Depth = int(atoi64(m[1]))
	}
	if m := violatedRE.FindStringSubmatch(out); m != nil {
		s.Violated = m[1]
	}
	return s
}

func lastMatch(re *regexp.Regexp, s string) []string {
	all := re.FindAllStringSubmatch(s, -1)
	if len(all) == 0 {
		return nil
	}
	return all[len(all)-1]
}

func atoi64(s string) int64 {
	n, _ := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	return n
}

// Judge decides whether a run behaved as expected: a model must exit 0
// having counted its states; a mutant must be rejected (Outcome.Rejects).
// The reason says why not, and is empty when ok.
func Judge(expectReject bool, exitCode int, s Stats) (ok bool, reason string) {
	o := OutcomeOf(exitCode)
	switch {
	case exitCode < 0:
		return false, "TLC did not finish (timed out or killed)"
	case o == OutcomeError:
		return false, fmt.Sprintf("TLC failed with exit code %d (not a violation: parse, semantic or evaluation error)", exitCode)
	case expectReject && o.Rejects():
		return true, ""
	case expectReject && o == OutcomeOK:
		return false, "mutant passed: TLC found no violation"
	case expectReject:
		return false, fmt.Sprintf("mutant stopped by an %s failure (exit code %d) before any behaviour was checked", o, exitCode)
	case o != OutcomeOK:
		v := s.Violated
		if v != "" {
			v = " of " + v
		}
		return false, fmt.Sprintf("model failed: %s violation%s (exit code %d)", o, v, exitCode)
	case !s.Counted:
		return false, "TLC exited 0 but printed no state counts"
	}
	return true, ""
}

// Result is the outcome of checking one model.
type Result struct {
	Model        string        // the config's base name
	Spec         string        // the spec's module name
	Mutant       string        // "" for a model that must pass
	Long         bool          // a long-mode model
	Expect       string        // the name that alone must reject the mutant, "" when none
	ExpectReject bool          // a mutant: TLC must reject it
	OK           bool          // it behaved as expected
	Reason       string        // why not OK; "" when OK
	Distinct     int64         // distinct states found
	Generated    int64         // states generated
	Depth        int           // depth of the search
	ExitCode     int           // TLC's exit code; -1 when it did not exit by itself
	Outcome      Outcome       // what the exit code means
	Violated     string        // the invariant or property TLC reported, if it named one
	Unnamed      bool          // a temporal violation TLC named nothing for: Violated lists the config's properties
	Stalled      bool          // stopped for making no progress for Checker.Stall (see StallReason)
	Duration     time.Duration // wall time of the TLC run
	CPU          time.Duration // the JVM's user and system CPU time: what a loaded machine's wall time hides
	Tail         string        // the last lines of TLC's output
	Only         *Result       // the re-run without Expect that must pass; nil when not run
}

// String is one line for logs and tables.
func (r Result) String() string {
	verdict := "ok"
	if !r.OK {
		verdict = "FAIL: " + r.Reason
	}
	what := "model"
	if r.ExpectReject {
		what = "mutant"
	}
	v := ""
	if r.Violated != "" {
		v = " violated " + r.Violated
	}
	if r.Expect != "" {
		v += ", expect " + r.Expect
	}
	only := ""
	if o := r.Only; o != nil {
		ov := ""
		if o.Violated != "" {
			ov = " violated " + o.Violated
		}
		only = fmt.Sprintf("; without %s: %s (exit %d%s), %d distinct states, %s", r.Expect, o.Outcome, o.ExitCode,
			ov, o.Distinct, o.Duration.Round(10*time.Millisecond))
	}
	cpu := ""
	if r.CPU > 0 {
		cpu = fmt.Sprintf(" (CPU %v)", r.CPU.Round(10*time.Millisecond))
	}
	return fmt.Sprintf("%s %s: %s (exit %d%s), %d distinct states, %d generated, depth %d, %s%s%s: %s",
		what, r.Model, r.Outcome, r.ExitCode, v, r.Distinct, r.Generated, r.Depth,
		r.Duration.Round(10*time.Millisecond), cpu, only, verdict)
}

// Checker runs TLC.
type Checker struct {
	Jar     string        // tla2tools.jar; required
	Java    string        // java binary; required
	Workers int           // TLC -workers; 0 or less means runtime.NumCPU()
	Timeout time.Duration // per TLC run, on top of the context; 0 means none
	// Stall is how long a TLC run may go without progress (no new output
	// line, or only progress lines whose state counts do not change) before
	// it is stopped and fails with StallReason: TLC 2.18 with one worker can
	// deadlock (tlaplus PR 1438) and would otherwise hang the caller. 0
	// means DefaultStall; a negative value turns the watch off.
	Stall time.Duration
	Long  bool // CheckAll runs the <Spec>_long models too
	// OnlyRerun makes Check re-run each mutant that names an Expect without
	// that name, which must then pass: it, and only it, rejects the mutant.
	// It about doubles the time of such a mutant.
	OnlyRerun bool
	Progress  func(Result) // if set, CheckAll calls it as each model finishes
	// Jobs is how many models CheckAll runs at once (0 or less: one). Most
	// models are small and a JVM's start is seconds of one core, so two
	// one-worker runs at once keep a 2-core machine busier than one
	// two-worker run.
	Jobs int
}

// NewChecker finds the jar and java and returns a Checker with the given
// workers that does the only-it re-run. The error wraps ErrNoJar (also
// when the jar found is not a jar, or not TLC's: CheckJar) or ErrNoJava.
func NewChecker(workers int) (Checker, error) {
	jar, err := FindJar()
	if err != nil {
		return Checker{}, err
	}
	if err := CheckJar(jar); err != nil {
		return Checker{}, err
	}
	java, err := FindJava()
	if err != nil {
		return Checker{}, err
	}
	return Checker{Jar: jar, Java: java, Workers: workers, OnlyRerun: true}, nil
}

// DefaultStall is Checker.Stall's default: generous, since a liveness
// check of a large model prints nothing while it runs, for minutes.
const DefaultStall = 10 * time.Minute

// StallReason is the Reason of a run stopped by the stall watch.
func StallReason(d time.Duration) string {
	return fmt.Sprintf("TLC made no progress for %v (no new output line, no change in its state counts): "+
		"stopped; TLC 2.18 with one worker can deadlock (tlaplus PR 1438): use -workers 2 or a newer TLC, "+
		"or a larger Stall if a liveness check is this slow", d)
}

// progressRE is TLC's periodic progress line; a repeat of the same counts
// is not progress (a deadlocked TLC keeps printing it).
var progressRE = regexp.MustCompile(`^Progress\(\d+\) at [^:]*:\d+:\d+: (.*)$`)

// watch is TLC's output: it keeps the text and the time of the last
// progress, which is a new line other than a progress line that repeats
// the last one's counts.
type watch struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	partial []byte // the unfinished last line
	counts  string // the counts of the last progress line
	last    time.Time
}

func (w *watch) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	w.partial = append(w.partial, b...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(w.partial[:i]), "\r")
		w.partial = w.partial[i+1:]
		if m := progressRE.FindStringSubmatch(line); m != nil {
			// The rates in parentheses change with the clock: compare
			// the counts only.
			c := rateRE.ReplaceAllString(m[1], "")
			if c == w.counts {
				continue
			}
			w.counts = c
		}
		w.last = time.Now()
	}
	return len(b), nil
}

var rateRE = regexp.MustCompile(`\([^)]*\)`)

// since is how long ago the last progress was.
func (w *watch) since() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return time.Since(w.last)
}

func (w *watch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// tailLines is how much of TLC's output a Result keeps: enough for a short
// counterexample.
const tailLines = 60

// Run checks one model once: a model must pass; a mutant must be rejected,
// by its Expect name when it has one. It does not do the only-it re-run
// (Check does). TLC's state files go to a temporary directory that is
// removed afterwards, and no trace-explorer spec is written next to the
// spec.
func (c Checker) Run(ctx context.Context, m Model) Result {
	r, s, ok := c.run(ctx, m)
	if !ok {
		return r
	}
	r.OK, r.Reason = Judge(r.ExpectReject, r.ExitCode, s)
	if r.OK && r.ExpectReject {
		r.OK, r.Reason = ExpectMet(m.Expect, r.Outcome, s.Violated, Properties(m.Config))
	}
	if r.ExitCode < 0 && ctx.Err() != nil {
		r.Reason = fmt.Sprintf("TLC did not finish: %v", ctx.Err())
	}
	if r.Stalled {
		r.Reason = StallReason(c.stall())
	}
	return r
}

// stall is the stall watch's limit in effect.
func (c Checker) stall() time.Duration {
	if c.Stall == 0 {
		return DefaultStall
	}
	return c.Stall
}

// Check is Run, followed for a rejected mutant with an Expect line (when
// OnlyRerun) by the run of its config without that name (Without), which
// must pass (JudgeOnly). Without OnlyRerun the re-run is still done where
// the first run cannot tell which property failed (a temporal violation
// TLC named nothing for, in a config with more than one property): it is
// then what shows that Expect's is the one.
func (c Checker) Check(ctx context.Context, m Model) Result {
	r := c.Run(ctx, m)
	ambiguous := r.Unnamed && strings.Contains(r.Violated, ",")
	if !r.OK || m.Expect == "" || !(c.OnlyRerun || ambiguous) {
		return r
	}
	only, ok, reason := c.runWithout(ctx, m)
	r.Only = &only
	r.OK, r.Reason = ok, reason
	if !ok && only.Tail != "" {
		r.Tail = only.Tail
	}
	return r
}

// runWithout runs m's config with m.Expect removed and judges it by
// JudgeOnly.
func (c Checker) runWithout(ctx context.Context, m Model) (Result, bool, string) {
	text, err := os.ReadFile(m.Config)
	if err != nil {
		return Result{Outcome: OutcomeError}, false, err.Error()
	}
	without, err := Without(string(text), m.Expect)
	if err != nil {
		return Result{Outcome: OutcomeError}, false, err.Error()
	}
	dir, err := os.MkdirTemp("", "tlc-only-")
	if err != nil {
		return Result{Outcome: OutcomeError}, false, err.Error()
	}
	defer os.RemoveAll(dir)
	// TLC reads a config only from beside its spec: the re-run gets a copy
	// of the spec's directory's modules (a spec may extend its neighbours).
	if err := copyModules(filepath.Dir(m.File), dir); err != nil {
		return Result{Outcome: OutcomeError}, false, err.Error()
	}
	cfg := filepath.Join(dir, m.Name+"_without_"+m.Expect+".cfg")
	if err := os.WriteFile(cfg, []byte(without), 0o644); err != nil {
		return Result{Outcome: OutcomeError}, false, err.Error()
	}
	w := Model{Name: m.Name + " without " + m.Expect, Spec: m.Spec, Config: cfg,
		File: filepath.Join(dir, filepath.Base(m.File)), Long: m.Long}
	r, s, ran := c.run(ctx, w)
	if !ran {
		return r, false, fmt.Sprintf("the re-run without %s did not run: %s", m.Expect, r.Reason)
	}
	r.OK, r.Reason = JudgeOnly(m.Expect, r.ExitCode, s)
	if r.ExitCode < 0 && ctx.Err() != nil {
		r.Reason = fmt.Sprintf("the re-run without %s did not finish: %v", m.Expect, ctx.Err())
	}
	if r.Stalled {
		r.Reason = fmt.Sprintf("the re-run without %s: %s", m.Expect, StallReason(c.stall()))
	}
	return r, r.OK, r.Reason
}

// copyModules copies every .tla file of from into to.
func copyModules(from, to string) error {
	tlas, err := filepath.Glob(filepath.Join(from, "*.tla"))
	if err != nil {
		return err
	}
	for _, f := range tlas {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, filepath.Base(f)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// run runs TLC on m and fills in everything but the verdict. ok is false
// when TLC could not be started; r.Reason then says why.
func (c Checker) run(ctx context.Context, m Model) (r Result, s Stats, ok bool) {
	r = Result{Model: m.Name, Spec: m.Spec, Mutant: m.Mutant, Long: m.Long, Expect: m.Expect,
		ExpectReject: m.ExpectReject(), ExitCode: -1}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	meta, err := os.MkdirTemp("", "tlc-meta-")
	if err != nil {
		r.Outcome, r.Reason = OutcomeError, err.Error()
		return r, s, false
	}
	defer os.RemoveAll(meta)
	cfg, err1 := filepath.Abs(m.Config)
	spec, err2 := filepath.Abs(m.File)
	if err := errors.Join(err1, err2); err != nil {
		r.Outcome, r.Reason = OutcomeError, err.Error()
		return r, s, false
	}

	stall := c.stall()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	cmd := exec.CommandContext(runCtx, c.Java, javaArgs(m, c.Jar, workers, meta, cfg, spec)...)
	cmd.Dir = filepath.Dir(spec)
	cmd.WaitDelay = 5 * time.Second
	out := &watch{last: time.Now()}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	var stalled atomic.Bool
	if stall > 0 {
		done := make(chan struct{})
		defer close(done)
		go func() {
			tick := time.NewTicker(max(stall/20, time.Millisecond))
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					if out.since() >= stall {
						stalled.Store(true)
						stop()
						return
					}
				}
			}
		}()
	}
	runErr := cmd.Run()
	r.Duration = time.Since(start)
	if ps := cmd.ProcessState; ps != nil {
		r.CPU = ps.UserTime() + ps.SystemTime()
	}
	text := out.String()
	r.Tail = tail(text, tailLines)
	if stalled.Load() && ctx.Err() == nil {
		r.Stalled = true
		r.Tail = tail(text+"\n"+StallReason(stall), tailLines)
	}

	var exitErr *exec.ExitError
	switch {
	case runErr == nil:
		r.ExitCode = 0
	case runCtx.Err() != nil:
		r.ExitCode = -1 // killed: whatever it exited with says nothing
	case errors.As(runErr, &exitErr):
		r.ExitCode = exitErr.ExitCode()
	default: // java did not start
		r.Outcome, r.Reason = OutcomeError, fmt.Sprintf("running TLC: %v", runErr)
		return r, s, false
	}
	s = Parse(text)
	r.Outcome = OutcomeOf(r.ExitCode)
	r.Distinct, r.Generated, r.Depth, r.Violated = s.Distinct, s.Generated, s.Depth, s.Violated
	if r.Outcome == OutcomeLiveness && r.Violated == "" {
		// TLC says only "Temporal properties were violated": name the
		// config's properties, one of which failed.
		r.Violated = strings.Join(Properties(m.Config), ",")
		r.Unnamed = true
	}
	return r, s, true
}

// CheckAll checks (Check) every model in dir of the checker's mode (Select),
// started in launchOrder, and returns the results in name order.
func (c Checker) CheckAll(ctx context.Context, dir string) ([]Result, error) {
	all, err := Models(dir)
	if err != nil {
		return nil, err
	}
	ms := Select(all, c.Long)
	if len(ms) == 0 {
		return nil, fmt.Errorf("tlc: no .cfg files to run in %s", dir)
	}
	jobs := max(c.Jobs, 1)
	results := make([]*Result, len(ms))
	var mu sync.Mutex // Progress is called from one goroutine at a time
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for _, i := range launchOrder(ms, jobs) {
		m := ms[i]
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			r := c.Check(ctx, m)
			results[i] = &r
			if c.Progress != nil {
				mu.Lock()
				c.Progress(r)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	var rs []Result
	var bad []error
	for i, m := range ms { // in model order, whatever order they finished in
		r := results[i]
		if r == nil {
			bad = append(bad, fmt.Errorf("%s: not run: %w", m.Name, ctx.Err()))
			continue
		}
		rs = append(rs, *r)
		if !r.OK {
			bad = append(bad, fmt.Errorf("%s: %s", r.Model, r.Reason))
		}
	}
	return rs, errors.Join(bad...)
}

// launchOrder is the order CheckAll starts ms in (indexes into ms). With
// several jobs the models that must pass go first: each searches its whole
// state space, where a mutant stops at its violation, so they are the long
// runs, and a long run started last leaves the other jobs idle at the end.
// With one job, name order.
func launchOrder(ms []Model, jobs int) []int {
	order := make([]int, 0, len(ms))
	for pass := range 2 {
		for i, m := range ms {
			if jobs == 1 || m.ExpectReject() == (pass == 1) {
				order = append(order, i)
			}
		}
		if jobs == 1 {
			break
		}
	}
	return order
}

// CheckAll finds the jar and java, then checks every default-mode model in
// dir with the given TLC workers (0 or less: one per CPU). It returns the
// results of the models it ran and an error that is non-nil when the check
// could not start (it then wraps ErrNoJar or ErrNoJava, or says why dir has
// no models) or when any model did not behave as expected (one line per
// model).
func CheckAll(ctx context.Context, dir string, workers int) ([]Result, error) {
	c, err := NewChecker(workers)
	if err != nil {
		return nil, err
	}
	return c.CheckAll(ctx, dir)
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		j := strings.LastIndexByte(s[:i], '\n')
		if j < 0 {
			return s
		}
		i = j
	}
	if i == len(s) {
		return ""
	}
	return s[i+1:]
}
