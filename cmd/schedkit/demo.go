package main

import (
	"fmt"
	"io"
	"os/exec"

	"github.com/schedkit/schedkit/cmd/schedkit/internal/demo"
)

// demopromPkg is the command that runs the demo with -prom: the
// Prometheus client is built only for it, so that cmd/schedkit imports the
// standard library and the module's own packages alone, and its first
// `go run` (the usage) downloads no module.
const demopromPkg = "./cmd/schedkit/demoprom"

// runDemo is `schedkit demo` (internal/demo): 0 when the tree was hashed,
// 1 when it could not be (one line saying why), 2 for a bad flag. -prom
// hands the whole run to demoprom.
func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("demo", demo.Usage, demo.Example, stdout)
	o := demo.Register(fs.FlagSet)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if o.Prom {
		return runDemoprom(args, stdout, stderr)
	}
	return demo.Run(*o, stdout, stderr, nil)
}

// runDemoprom runs `go run ./cmd/schedkit/demoprom ARGS` in the module's
// root, its output as the demo's, and returns its exit code.
var runDemoprom = func(args []string, stdout, stderr io.Writer) int {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(stderr, "schedkit demo -prom:", err)
		return 1
	}
	cmd := exec.Command("go", append([]string{"run", demopromPkg}, args...)...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, stdout, stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode() // go run exits 1 for any failure of the program
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedkit demo -prom: go run %s: %v\n", demopromPkg, err)
		return 1
	}
	return 0
}
