//go:build schedmutant

package fuzz_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/internal/mutation"
	"github.com/schedkit/schedkit/lfq"
	"github.com/schedkit/schedkit/runnext"
	"github.com/schedkit/schedkit/spinning"
	"github.com/schedkit/schedkit/stealing"
)

// With -tags schedmutant, SCHEDKIT_MUTATION=<Name> runs every target of
// this binary on the component fault of that name (mutation names are
// distinct across components), to watch a target find it; an unknown name
// exits with status 2.
func init() {
	name := os.Getenv(mutation.EnvVar)
	if name == "" {
		return
	}
	if _, err := setAnyMutation(name); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// setAnyMutation selects the mutation called name in whichever component
// has it, and returns the function that restores the real code.
func setAnyMutation(name string) (restore func(), err error) {
	var errs []string
	for _, set := range []func(string) (func(), error){
		lfq.SetMutation, runnext.SetMutation, globalq.SetMutation, stealing.SetMutation, spinning.SetMutation,
	} {
		restore, err := set(name)
		if err == nil {
			return restore, nil
		}
		errs = append(errs, err.Error())
	}
	return nil, fmt.Errorf("fuzz: %s names no component's mutation:\n  %s", name, strings.Join(errs, "\n  "))
}
