package tla

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/tlc"
)

// TestTLC runs TLC on every model and mutant config in this directory: each
// <Spec>.cfg must pass, each <Spec>_mutant_<Name>.cfg must be rejected with a
// violation, by the invariant or property its `\* Expect:` line names when it
// has one. It runs under -short too: every default model is sized to finish
// in seconds. With SCHEDKIT_TLC_LONG=1 (long mode) it runs the
// <Spec>_long*.cfg models too and re-runs each mutant with an Expect line
// without that name, which must then pass ("it, and only it, rejects"); the
// re-run is left to long mode because it about doubles TLC's time. Without
// tla2tools.jar (or java) it is skipped, saying how to get it.
func TestTLC(t *testing.T) {
	c, err := tlc.NewChecker(2)
	if errors.Is(err, tlc.ErrNoJar) || errors.Is(err, tlc.ErrNoJava) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	c.Timeout = 5 * time.Minute // a runaway model fails instead of hanging the suite
	long := tlc.LongFromEnv()
	if long {
		// The _long models take minutes of TLC each (Ring_long about 25 on
		// this project's 2-core machine, Steal_long about 26).
		c.Timeout = 90 * time.Minute
	}
	c.OnlyRerun = long
	models, err := tlc.Models(".")
	if err != nil {
		t.Fatal(err)
	}
	models = tlc.Select(models, long)
	if len(models) == 0 {
		t.Fatal("no .cfg files in proofs/tla")
	}
	for _, m := range models {
		t.Run(m.Name, func(t *testing.T) {
			if m.ExpectReject() && m.Expect == "" {
				t.Logf("%s has no `\\* Expect: <Name>` line: any rejection counts", m.Name)
			}
			r := c.Check(context.Background(), m)
			t.Log(r)
			if !r.OK {
				t.Errorf("%s: %s\n%s", r.Model, r.Reason, r.Tail)
			}
		})
	}
}
