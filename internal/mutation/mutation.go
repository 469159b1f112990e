// Package mutation selects a component's seeded fault under the build tag
// schedmutant. A component declares its faults as small integer constants
// with names (index 0 is "none", the real code), keeps the current one in a
// package-level variable that is a constant in a normal build (so every
// faulty branch compiles away), and exports SetMutation through Select.
package mutation

import (
	"fmt"
	"os"
)

// Select sets *current to the fault called name, an index into names, and
// returns a function that restores the previous one. Call it only while the
// component is not in use: the variable is read without synchronization.
func Select[M ~uint8](component string, names []string, current *M, name string) (restore func(), err error) {
	for i, n := range names {
		if n == name {
			old := *current
			*current = M(i)
			return func() { *current = old }, nil
		}
	}
	return nil, fmt.Errorf("%s: no mutation named %q (have %v)", component, name, names[1:])
}

// EnvVar names the environment variable FromEnv reads.
const EnvVar = "SCHEDKIT_MUTATION"

// FromEnv selects, with set, the mutation named by $SCHEDKIT_MUTATION, so
// that a whole test binary runs with one seeded fault, to watch a checker
// catch it. A test file's init calls it; an unknown name exits with status 2.
func FromEnv(set func(name string) (restore func(), err error)) {
	name := os.Getenv(EnvVar)
	if name == "" {
		return
	}
	if _, err := set(name); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
