// Command schedkit runs schedkit's verification ladder.
//
//	schedkit verify [-long] [-race=false] [-tla=false]   every check that exists, as a table
//	schedkit tlc [-long] [-only=auto] [-workers n]       TLC on every spec and mutant config
//	schedkit tlc -install [-url u]                       download tla2tools.jar to ~/.cache/tla
//
// verify exits 1 when a check fails. tlc exits 1 when a spec fails or a
// mutant passes, and 3 (exitNoJar) when no tla2tools.jar or java is found,
// so that CI can report TLC as skipped rather than passed; scripts/test.sh
// runs a built binary for that, since `go run` turns every non-zero exit into
// 1. tlc -install exits 0 when the jar is in place and runs, else 1 with one
// line saying what to do.
package main

import (
	"fmt"
	"os"
)

const exitNoJar = 3

func usage() {
	fmt.Fprintln(os.Stderr, `usage:
  schedkit verify [-long] [-race=false] [-tla=false]   run every check and print the table
  schedkit tlc [-long] [-only=auto] [-workers n]       run TLC on every spec and mutant config
  schedkit tlc -install [-url u]                       download tla2tools.jar to ~/.cache/tla`)
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	var code int
	switch os.Args[1] {
	case "verify":
		code = runVerify(os.Args[2:])
	case "tlc":
		code = runTLC(os.Args[2:], os.Stdout, os.Stderr)
	case "-h", "-help", "--help", "help":
		usage()
	default:
		fmt.Fprintf(os.Stderr, "schedkit: unknown command %q\n", os.Args[1])
		usage()
		code = 2
	}
	os.Exit(code)
}
