//go:build schedcheck && schedmutant

package fuzz_test

import (
	"os"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/internal/mutation"
)

// TestInterleavedRegressions: every input saved under
// testdata/fuzz/<Target>/ as "<Mutation>-<hash>" (what go test -fuzz found
// on that seeded fault) still fails on that mutation, so each finding stays
// a deterministic regression; go test replays the same files on the real
// code, which must pass them.
func TestInterleavedRegressions(t *testing.T) {
	if os.Getenv(mutation.EnvVar) != "" {
		t.Skipf("%s is set: this test selects each mutation itself", mutation.EnvVar)
	}
	found := 0
	for target, run := range ivTargets {
		for file, data := range ivRegressions(t, target) {
			name, _, ok := strings.Cut(file, "-")
			if !ok {
				continue // not a mutant's finding
			}
			found++
			t.Run(target+"/"+file, func(t *testing.T) {
				if err := run(data); err != nil {
					t.Fatalf("the real code fails the regression input: %v", err)
				}
				restore, err := setAnyMutation(name)
				if err != nil {
					t.Fatal(err)
				}
				defer restore()
				err = run(data)
				if err == nil {
					t.Fatalf("mutation %s passes its regression input", name)
				}
				t.Logf("%s caught %s: %s", target, name, firstLine(err.Error()))
			})
		}
	}
	if found == 0 {
		t.Fatal("no regression inputs under testdata/fuzz/")
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
