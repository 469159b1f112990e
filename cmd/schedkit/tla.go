package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schedkit/schedkit/internal/tlc"
)

// tlaDir is where the specs live, relative to the module root.
const tlaDir = "proofs/tla"

// componentPrefixes map a spec or fuzz target name to its component by
// prefix, so new modules (RunnextFine.tla, FuzzRingSchedule) need no entry.
var componentPrefixes = []struct{ prefix, component string }{
	{"Ring", "lfq"}, {"Runnext", "runnext"}, {"GlobalQ", "globalq"}, {"Steal", "stealing"},
	{"Spinning", "spinning"}, {"Timers", "timers"}, {"Executor", "executor"},
	{"ParkReady", "executor"}, {"TaskChan", "taskchan"}, {"PollDesc", "netpoll"},
}

// componentOf names the component a spec or fuzz target belongs to: the
// longest matching prefix wins; "" when none matches.
func componentOf(name string) string {
	best, comp := 0, ""
	for _, p := range componentPrefixes {
		if strings.HasPrefix(name, p.prefix) && len(p.prefix) > best {
			best, comp = len(p.prefix), p.component
		}
	}
	return comp
}

// tlaOptions say which models run and how.
type tlaOptions struct {
	workers  int
	long     bool                          // the _long models too
	only     bool                          // the only-it re-run of mutants with an Expect line
	sel      selector                      // verify -run: the models that can make a row it keeps
	progress func(format string, a ...any) // a line as each model starts and ends; nil for none
}

// modelCheck is the start of the check a model's row will have, enough
// for -run to pick it before it runs.
func modelCheck(m tlc.Model) string {
	name := m.Spec
	if m.Long {
		name += " (long)"
	}
	if m.ExpectReject() {
		return "TLA+ " + name + " mutant " + m.Mutant + " rejected"
	}
	return "TLA+ " + name + ".tla passes"
}

// onlyDefault is whether the only-it re-run is on without -long: it roughly
// doubles a mutant's time, so it follows the mode unless told otherwise.
func onlyDefault(long bool) bool { return long }

// tlaRows runs TLC on every model of the mode and makes one row each.
// Without a jar or java it makes one skipped row that says how to get them.
func tlaRows(ctx context.Context, root string, o tlaOptions) []row {
	c, err := tlc.NewChecker(o.workers)
	if errors.Is(err, tlc.ErrNoJar) || errors.Is(err, tlc.ErrNoJava) {
		return []row{{component: "all", check: "TLA+ (TLC)", result: "skipped: " + err.Error(), explored: "-"}}
	}
	c.Long, c.OnlyRerun = o.long, o.only
	var ms []tlc.Model
	if err == nil {
		ms, err = tlc.Models(filepath.Join(root, tlaDir))
	}
	var rows []row
	if err != nil {
		fmt.Fprintln(os.Stderr, "schedkit: TLC:", err)
		return []row{{component: "all", check: "TLA+ (TLC)", result: "FAIL", explored: "-"}}
	}
	var todo []tlc.Model
	for _, m := range tlc.Select(ms, o.long) {
		comp := componentOf(m.Spec)
		if comp == "" {
			comp = m.Spec
		}
		if o.sel.match(comp, modelCheck(m)) {
			todo = append(todo, m)
		}
	}
	for i, m := range todo {
		if o.progress != nil {
			o.progress("TLC %d of %d: %s", i+1, len(todo), m.Name)
		}
		r := c.Check(ctx, m)
		if o.progress != nil {
			verdict := "ok"
			if !r.OK {
				verdict = "FAIL: " + r.Reason
			}
			o.progress("  %s: %d states, %v: %s", m.Name, r.Distinct, r.Duration.Round(time.Millisecond), verdict)
		}
		rows = append(rows, tlaRow(r))
	}
	return rows
}

func tlaRow(r tlc.Result) row {
	comp := componentOf(r.Spec)
	if comp == "" {
		comp = r.Spec
	}
	name := r.Spec
	if r.Long {
		name += " (long)"
	}
	check := "TLA+ " + name + ".tla passes"
	if r.ExpectReject {
		check = "TLA+ " + name + " mutant " + r.Mutant + " rejected"
		switch {
		case r.Only != nil:
			check += " by " + r.Expect + " only"
		case r.Expect != "":
			check += " by " + r.Expect
		case r.Violated != "":
			check += " (" + r.Violated + "; no Expect line)"
		default:
			check += " (no Expect line)"
		}
	}
	res := "pass"
	if !r.OK {
		res = "FAIL"
	}
	explored := strconv.FormatInt(r.Distinct, 10) + " states"
	if r.Only != nil {
		explored += " + " + strconv.FormatInt(r.Only.Distinct, 10) + " without"
	}
	return row{component: comp, check: check, result: res, explored: explored}
}

// noExpectWarnings names every mutant config that has no Expect line: it
// is judged by any rejection, and nothing checks what rejects it.
func noExpectWarnings(w io.Writer, ms []tlc.Model) int {
	n := 0
	for _, m := range ms {
		if m.ExpectReject() && m.Expect == "" {
			fmt.Fprintf(w, "schedkit tlc: warning: %s has no `\\* Expect: <Name>` line: any rejection counts\n",
				filepath.Base(m.Config))
			n++
		}
	}
	return n
}

const tlcAbout = `usage: schedkit tlc [-long] [-only=auto] [-workers n] [-jobs n] [-stall d] [-dir DIR]
       schedkit tlc -install [-url URL]

Runs TLC on every spec and mutant config in proofs/tla: a spec's model
must pass and a mutant must be rejected (by its Expect name alone, with the
only-it re-run). A line per model as it ends. Exits 1 when a model does not
behave, 3 when no tla2tools.jar or java is found, or the jar is not TLC's
(-install fetches the jar, or copies a local one given with -url), 2 for a
bad flag (-workers below 0, -jobs below 1, a -dir that does not exist).
A TLC run that makes no progress for -stall (no new output line, no change
in its state counts: TLC 2.18 with one worker can deadlock) is stopped and
fails with a line saying so.`

const tlcExample = `  go run ./cmd/schedkit tlc -install
  go run ./cmd/schedkit tlc -jobs 2 -workers 1`

// runTLC is `schedkit tlc`: every model must pass and every mutant must be
// rejected (by its Expect name alone, where it has one). It exits
// exitNoJar when TLC cannot run here. With -install it downloads the jar
// instead.
func runTLC(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("tlc", tlcAbout, tlcExample, stdout)
	workers := fs.Int("workers", 2, "TLC worker threads per model (0: one per CPU)")
	jobs := fs.Int("jobs", 1, "models checked at once (each with -workers threads)")
	long := fs.Bool("long", false, "run the <Spec>_long models too (larger constants)")
	only := fs.String("only", "auto", "re-run each mutant with an Expect line without that name, which must pass: "+
		"true, false, or auto (only with -long)")
	dir := fs.String("dir", "", "the specs' directory (default: proofs/tla of the module)")
	stall := fs.Duration("stall", tlc.DefaultStall, "stop and fail a TLC run that makes no progress this long (0 or less: never)")
	install := fs.Bool("install", false, "download tla2tools.jar ("+tlc.PinnedRelease+") to ~/.cache/tla and check it runs")
	url := fs.String("url", "", "with -install: download from this URL, or copy this file (a path or file:// URL) (default $"+tlc.URLEnv+", else the pinned release)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *install {
		return runInstall(*url, stdout, stderr)
	}
	if *url != "" {
		fmt.Fprintf(stderr, "schedkit tlc: -url %s needs -install: schedkit tlc -install -url %s\n", *url, *url)
		return 2
	}
	if *workers < 0 {
		fmt.Fprintf(stderr, "schedkit tlc: -workers %d: want 1 or more TLC worker threads, or 0 for one per CPU\n", *workers)
		return 2
	}
	if *jobs < 1 {
		fmt.Fprintf(stderr, "schedkit tlc: -jobs %d: want 1 or more models checked at once\n", *jobs)
		return 2
	}
	if *dir != "" {
		if fi, err := os.Stat(*dir); err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "schedkit tlc: -dir %s: the directory does not exist: pass the specs' directory (default: proofs/tla of the module)\n", *dir)
			return 2
		}
	}
	onlyRerun := onlyDefault(*long)
	switch *only {
	case "auto":
	case "true", "false":
		onlyRerun = *only == "true"
	default:
		fmt.Fprintf(stderr, "schedkit tlc: -only=%q: want true, false or auto\n", *only)
		return 2
	}
	if *dir == "" {
		root, err := moduleRoot()
		if err != nil {
			fmt.Fprintln(stderr, "schedkit tlc:", err)
			return 1
		}
		*dir = filepath.Join(root, tlaDir)
	}

	c, err := tlc.NewChecker(*workers)
	if errors.Is(err, tlc.ErrNoJar) || errors.Is(err, tlc.ErrNoJava) {
		fmt.Fprintln(stderr, "schedkit tlc: skipped:", err)
		return exitNoJar
	}
	if err != nil {
		fmt.Fprintln(stderr, "schedkit tlc:", err)
		return 1
	}
	c.Long, c.OnlyRerun, c.Jobs = *long, onlyRerun, *jobs
	c.Stall = *stall
	if *stall <= 0 {
		c.Stall = -1
	}
	ms, err := tlc.Models(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "schedkit tlc:", err)
		return 1
	}
	noExpectWarnings(stderr, tlc.Select(ms, *long))
	mode := "default mode"
	if *long {
		mode = "long mode"
	}
	rerun := "without the only-it re-run (-only=true, or -long, to do it)"
	if onlyRerun {
		rerun = "with the only-it re-run"
	}
	fmt.Fprintf(stdout, "tlc: %s, %s\n", mode, rerun)

	c.Progress = func(r tlc.Result) { // each line as it comes: a whole run takes minutes
		fmt.Fprintln(stdout, r.String())
		if !r.OK && r.Tail != "" {
			fmt.Fprintln(stdout, "  "+strings.ReplaceAll(r.Tail, "\n", "\n  "))
		}
	}
	rs, err := c.CheckAll(context.Background(), *dir)
	if err != nil {
		fmt.Fprintln(stderr, "schedkit tlc:", strings.ReplaceAll(err.Error(), "\n", "; "))
		return 1
	}
	fmt.Fprintf(stdout, "tlc: %d models behaved as expected\n", len(rs))
	return 0
}

// runInstall is `schedkit tlc -install`: 0 when the jar is in place and
// runs, 1 with one line saying why not.
func runInstall(url string, stdout, stderr io.Writer) int {
	got, err := tlc.Installer{URL: url}.Install(context.Background())
	if err != nil {
		fmt.Fprintln(stderr, "schedkit", err)
		return 1
	}
	fmt.Fprintf(stdout, "tlc: installed %s (%d bytes from %s)\n  %s\n", got.Path, got.Bytes, got.URL, got.Version)
	if p := os.Getenv(tlc.JarEnv); p != "" && p != got.Path {
		fmt.Fprintf(stdout, "  note: %s=%s is set and takes precedence over it\n", tlc.JarEnv, p)
	}
	return 0
}
