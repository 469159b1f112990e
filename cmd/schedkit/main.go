// Command schedkit runs schedkit's verification ladder and shows the
// executor at work.
//
//	schedkit verify [-long] [-run PATTERN] [-list] [-json]  every check that exists, as a table
//	schedkit demo [-dir PATH] [-procs N] [-trace F]  hash a directory tree on the executor
//	schedkit trace [-o FILE] [-workload NAME]        Chrome trace-event JSON of a workload
//	schedkit tlc [-long] [-only=auto] [-workers n]   TLC on every spec and mutant config
//	schedkit tlc -install [-url u]                   download (or copy) tla2tools.jar to ~/.cache/tla
//	schedkit bench [-quick] [-count N] [-run RE]     the benchmark suite: ratios, RESULTS.md, charts
//	schedkit explore [-tags T] PKG [-- go test flags] explore a package on sync/atomic, unmodified
//
// Every subcommand takes -h (its flags and an example). An unknown command
// or a bad flag prints one line saying what to do and exits 2; a failure
// to run (no such directory, an unwritable output, no jar) one line and a
// non-zero exit.
//
// verify exits 1 when a check fails. tlc exits 1 when a spec fails or a
// mutant passes, and 3 (exitNoJar) when no tla2tools.jar or java is found
// (or the jar found is not a jar, or not TLC's), so that CI can report TLC
// as skipped rather than passed; scripts/test.sh
// runs a built binary for that, since `go run` turns every non-zero exit into
// 1. tlc -install exits 0 when the jar is in place and runs, else 1 with one
// line saying what to do.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

const exitNoJar = 3

const usageText = `usage: schedkit <command> [flags]   (schedkit <command> -h for its flags and an example)

  verify [-long] [-run PATTERN] [-list] [-json]   run every check (or -list them) and print the table
  demo [-dir PATH] [-procs N] [-trace FILE]       hash a directory tree on the executor, print per-P stats
  trace [-o FILE] [-workload NAME]                write a Chrome trace-event JSON of a workload (Perfetto)
  tlc [-long] [-only=auto] [-workers n]           run TLC on every spec and mutant config
  tlc -install [-url u]                           download tla2tools.jar (or copy a local one) to ~/.cache/tla
  bench [-quick] [-count N] [-run RE] [-cpu LIST] run the benchmark suite: ratios, bench/RESULTS.md, charts
  explore [-tags T] [-n] PKG [-- GO TEST FLAGS]   run a package written on sync/atomic and sync, unmodified,
                                                  under the explorer (its tests, -tags schedcheck, rewritten)

example:
  go run ./cmd/schedkit verify -run 'lfq'
  go run ./cmd/schedkit demo`

func usage(w io.Writer) { fmt.Fprintln(w, usageText) }

// commands maps a subcommand to its run function.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"verify":  runVerify,
	"demo":    runDemo,
	"trace":   runTraceTo,
	"tlc":     runTLC,
	"bench":   runBench,
	"explore": runExplore,
}

// run dispatches a command line (without the program name) and returns the
// exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		usage(stderr)
		return 2
	}
	if f := commands[args[0]]; f != nil {
		return f(args[1:], stdout, stderr)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "schedkit: unknown command %q: want one of %s (schedkit -h for help)\n", args[0], commandList())
	return 2
}

func commandList() string {
	var names []string
	for _, n := range []string{"verify", "demo", "trace", "tlc", "bench", "explore"} {
		if commands[n] != nil {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// cmdFlags is a subcommand's flag set and its -h text.
type cmdFlags struct {
	*flag.FlagSet
	help func()
}

// newFlags makes a subcommand's flag set: -h writes about, the flags and
// example to w; parse errors are left to parseFlags, which makes them one
// line (flag's own usage dump on an error is silenced).
func newFlags(name, about, example string, w io.Writer) *cmdFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &cmdFlags{fs, func() {
		fmt.Fprintf(w, "%s\n\nflags:\n", about)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		fmt.Fprintf(w, "\nexample:\n%s\n", example)
	}}
}

// parseFlags parses args. ok is false when the command must stop at once
// with code: 0 after -h, 2 after a bad flag or a stray argument, having
// written one line that names the problem and points to -h.
func parseFlags(fs *cmdFlags, args []string, stderr io.Writer) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.help()
		return 0, false
	case err != nil:
		fmt.Fprintf(stderr, "schedkit %s: %v (schedkit %s -h lists the flags)\n", fs.Name(), err, fs.Name())
		return 2, false
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "schedkit %s: unexpected argument %q: every input is a flag (schedkit %s -h lists them)\n",
			fs.Name(), fs.Arg(0), fs.Name())
		return 2, false
	}
	return 0, true
}
