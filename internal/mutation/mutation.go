// Package mutation selects a component's seeded fault under the build tag
// schedmutant. A component declares its faults as small integer constants
// with names (index 0 is "none", the real code), keeps the current one in a
// package-level variable that is a constant in a normal build (so every
// faulty branch compiles away), and exports SetMutation through Select.
package mutation

import "fmt"

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
