// Command demoprom is `schedkit demo -prom`: the demo (internal/demo), then
// what a Prometheus scrape of metrics/prom's collector returns after the
// run. It is a command of its own so that cmd/schedkit does not import the
// Prometheus client: schedkit demo -prom runs it with `go run`, and it
// takes demo's flags.
//
//	go run ./cmd/schedkit/demoprom -files 500 | grep '^schedkit_tasks_total'
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/schedkit/schedkit/cmd/schedkit/internal/demo"
	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/metrics/prom"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run parses demo's flags and runs it with the scrape: the exit codes are
// demo's.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo -prom", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := demo.Register(fs)
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(stdout, "%s\n\nflags:\n", demo.Usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "schedkit demo -prom: %v (schedkit demo -h lists the flags)\n", err)
		return 2
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "schedkit demo -prom: unexpected argument %q: every input is a flag\n", fs.Arg(0))
		return 2
	}
	o.Prom = true
	return demo.Run(*o, stdout, stderr, writeProm)
}

// writeProm writes what a scrape of e's collector returns, in the text
// format.
func writeProm(w io.Writer, e *executor.Executor) error {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(prom.New(e)); err != nil {
		return err
	}
	fams, err := reg.Gather()
	if err != nil {
		return err
	}
	for _, f := range fams {
		if _, err := expfmt.MetricFamilyToText(w, f); err != nil {
			return err
		}
	}
	return nil
}
