package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/internal/tlc"
)

// tlaDir is where the specs live, relative to the module root.
const tlaDir = "proofs/tla"

// tlaComponents names the component each spec models.
var tlaComponents = map[string]string{"Ring": "lfq", "Runnext": "runnext", "GlobalQ": "globalq",
	"Steal": "stealing", "Spinning": "spinning"}

// tlaRows runs TLC on every spec and mutant config and makes one row each.
// Without a jar or java it makes one skipped row that says how to get them.
func tlaRows(ctx context.Context, root string, workers int) []row {
	rs, err := tlc.CheckAll(ctx, filepath.Join(root, tlaDir), workers)
	if errors.Is(err, tlc.ErrNoJar) || errors.Is(err, tlc.ErrNoJava) {
		return []row{{component: "all", check: "TLA+ (TLC)", result: "skipped: " + err.Error(), explored: "-"}}
	}
	var rows []row
	for _, r := range rs {
		rows = append(rows, tlaRow(r))
	}
	if err != nil && len(rs) == 0 {
		fmt.Fprintln(os.Stderr, "schedkit: TLC:", err)
		rows = append(rows, row{component: "all", check: "TLA+ (TLC)", result: "FAIL", explored: "-"})
	}
	return rows
}

func tlaRow(r tlc.Result) row {
	comp := tlaComponents[r.Spec]
	if comp == "" {
		comp = r.Spec
	}
	check := "TLA+ " + r.Spec + ".tla passes"
	if r.ExpectReject {
		check = "TLA+ mutant " + r.Mutant + " rejected"
		if r.Violated != "" {
			check += " (" + r.Violated + ")"
		}
	}
	res := "pass"
	if !r.OK {
		res = "FAIL"
	}
	return row{component: comp, check: check, result: res,
		explored: strconv.FormatInt(r.Distinct, 10) + " states"}
}

// runTLC is `schedkit tlc`: every model must pass and every mutant must be
// rejected. It exits exitNoJar when TLC cannot run here.
func runTLC(args []string) int {
	fs := flag.NewFlagSet("tlc", flag.ExitOnError)
	workers := fs.Int("workers", 2, "TLC worker threads (0: one per CPU)")
	_ = fs.Parse(args)
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "schedkit tlc:", err)
		return 1
	}
	rs, err := tlc.CheckAll(context.Background(), filepath.Join(root, tlaDir), *workers)
	if errors.Is(err, tlc.ErrNoJar) || errors.Is(err, tlc.ErrNoJava) {
		fmt.Fprintln(os.Stderr, "schedkit tlc: skipped:", err)
		return exitNoJar
	}
	for _, r := range rs {
		fmt.Println(r.String())
		if !r.OK && r.Tail != "" {
			fmt.Println("  " + strings.ReplaceAll(r.Tail, "\n", "\n  "))
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "schedkit tlc:", err)
		return 1
	}
	fmt.Printf("tlc: %d models behaved as expected\n", len(rs))
	return 0
}
