//go:build schedmutant

package fuzz_test

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/internal/mutation"
	"github.com/schedkit/schedkit/lfq"
	"github.com/schedkit/schedkit/runnext"
	"github.com/schedkit/schedkit/spinning"
	"github.com/schedkit/schedkit/stealing"
	"github.com/schedkit/schedkit/timers"
)

// With -tags schedmutant, SCHEDKIT_MUTATION=<Name> runs every target of
// this binary on the component fault of that name, to watch a target find
// it; a name two components use (GetSkipsLast) must say which, as
// <component>.<Name> (globalq.GetSkipsLast). An unknown or ambiguous name
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

// ivComponents are the components' mutation setters, by package name.
var ivComponents = []struct {
	name string
	list func() []string
	set  func(string) (func(), error)
}{
	{"lfq", lfq.Mutations, lfq.SetMutation},
	{"runnext", runnext.Mutations, runnext.SetMutation},
	{"globalq", globalq.Mutations, globalq.SetMutation},
	{"stealing", stealing.Mutations, stealing.SetMutation},
	{"spinning", spinning.Mutations, spinning.SetMutation},
	{"timers", timers.Mutations, timers.SetMutation},
}

// setAnyMutation selects the mutation called name ("<Name>" if only one
// component has one of that name, else "<component>.<Name>"), and returns
// the function that restores the real code.
func setAnyMutation(name string) (restore func(), err error) {
	component, short, qualified := strings.Cut(name, ".")
	if !qualified {
		short = name
	}
	var owners []string
	var set func(string) (func(), error)
	for _, c := range ivComponents {
		if (qualified && c.name != component) || !slices.Contains(c.list(), short) {
			continue
		}
		owners = append(owners, c.name)
		set = c.set
	}
	switch len(owners) {
	case 0:
		return nil, fmt.Errorf("fuzz: no component has a mutation named %q", name)
	case 1:
		return set(short)
	}
	return nil, fmt.Errorf("fuzz: mutation %q is in %s: say which, as %s.%s", name, strings.Join(owners, " and "), owners[0], short)
}
