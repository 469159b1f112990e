package once

import (
	"testing"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore/lincheck"
)

// counted is a Once and how many times its f has run.
type counted[D doer] struct {
	o   D
	ran atomicx.Int32
}

// onceModel: the first Do runs f; every Do returns after it has, so each
// sees one run.
var onceModel = lincheck.Model[bool]{Init: func() bool { return false }}

func onceOps[D doer]() []lincheck.Op[*counted[D], bool] {
	return []lincheck.Op[*counted[D], bool]{{Name: "do",
		Run: func(c *counted[D], _ int) any {
			c.o.Do(func() { c.ran.Add(1) })
			return c.ran.Load()
		},
		Step: func(bool, int) (bool, any) { return true, int32(1) }}}
}

var linOpts = lincheck.Options{Threads: 2, OpsPerThread: 1, Seeds: 1}

// TestOnceIsLinearizable: every Do returns having seen f run, once.
func TestOnceIsLinearizable(t *testing.T) {
	lincheck.Check(t, linOpts, onceModel, func() *counted[*Once] { return &counted[*Once]{o: new(Once)} }, onceOps[*Once]()...)
}

// TestDoneFirstIsNotLinearizable: the single-CAS Once lets the second Do
// return before f has run: it sees 0 runs.
func TestDoneFirstIsNotLinearizable(t *testing.T) {
	lincheck.CheckFails(t, linOpts, onceModel, func() *counted[*doneFirst] { return &counted[*doneFirst]{o: new(doneFirst)} }, onceOps[*doneFirst]()...)
}
