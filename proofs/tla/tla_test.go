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
// violation. It runs under -short too: every model is sized to finish in
// seconds. Without tla2tools.jar (or java) it is skipped, saying how to get it.
func TestTLC(t *testing.T) {
	c, err := tlc.NewChecker(2)
	if errors.Is(err, tlc.ErrNoJar) || errors.Is(err, tlc.ErrNoJava) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	c.Timeout = 5 * time.Minute // a runaway model fails instead of hanging the suite
	models, err := tlc.Models(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(models) == 0 {
		t.Fatal("no .cfg files in proofs/tla")
	}
	for _, m := range models {
		t.Run(m.Name, func(t *testing.T) {
			r := c.Run(context.Background(), m)
			t.Log(r)
			if !r.OK {
				t.Errorf("%s: %s\n%s", r.Model, r.Reason, r.Tail)
			}
		})
	}
}
