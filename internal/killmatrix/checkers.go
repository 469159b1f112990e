package killmatrix

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/internal/proptest"
)

// ByExplorer is the body of a component's "explorer" checker: explore runs
// the component's explorations of its real code (the mutation selected) in
// a build with the explorer, -tags schedcheck. In a build without it every
// exploration is refused with explore.ErrNoSchedcheck, an error that would
// read as a kill, so the cell reads n/a (ErrNotApplicable) and explore is
// not called.
func ByExplorer(explore func() error) error {
	if !explorerBuilt() {
		return ErrNotApplicable
	}
	return explore()
}

// explorerBuilt reports whether this build has the explorer's hooks: an
// exploration of nothing is refused only without them.
func explorerBuilt() bool {
	_, err := explore.Explore(explore.Options{}, func() explore.Run { return explore.Run{} })
	return !errors.Is(err, explore.ErrNoSchedcheck)
}

// ByModel is the body of a component's "model" checker: prop, the rapid
// state machine against the component's sequential model, runs on
// proptest.ExpectFailure (the seed fixed, so the verdict on given code is
// the same on every run). A failure catches the mutant, with the first line
// of rapid's first message as the reason.
func ByModel(t *testing.T, prop func(*rapid.T)) error {
	rec := proptest.ExpectFailure(t, prop)
	if rec.Failed() {
		return errors.New(rec.FirstError())
	}
	return nil
}

// ModelCatch proves a model test can fail, in the form a component's
// TestXModelCatches... test needs: prop, the property on a broken variant,
// runs as ByModel runs it and must fail with reason somewhere in its
// messages. It returns the first line of the failure; the error says how
// many cases rapid tried when nothing failed, or every message when the
// failure was for another reason.
func ModelCatch(t *testing.T, prop func(*rapid.T), reason string) (string, error) {
	cases := 0
	rec := proptest.ExpectFailure(t, func(rt *rapid.T) {
		cases++
		prop(rt)
	})
	if !rec.Failed() {
		return "", fmt.Errorf("rapid did not catch it in %d cases", cases)
	}
	if all := strings.Join(rec.Errors(), "\n"); !strings.Contains(all, reason) {
		return "", fmt.Errorf("rapid failed, but not for the expected reason %q:\n%s", reason, all)
	}
	return rec.FirstError(), nil
}

// Ladder names the bodies of a component's checkers by rung. Checkers lists
// those given, in the table's order, each marked as its rung is in every
// component: the explorer's DFS, the rapid model on its fixed seed and the
// fixed scenarios are deterministic and carry the two kills; stress and the
// histories of real goroutines depend on the machine's timing and are
// extras. A nil rung has no column.
type Ladder struct {
	Explorer, Model, Scenarios func(t *testing.T) error
	Stress, Linearize          func(t *testing.T) error
}

// Checkers is the ladder as Config.Checkers.
func (l Ladder) Checkers() []Checker {
	var cs []Checker
	for _, c := range []Checker{
		{Name: "explorer", Run: l.Explorer, Deterministic: true, RealCodeElsewhere: true},
		{Name: "model", Run: l.Model, Deterministic: true},
		{Name: "scenarios", Run: l.Scenarios, Deterministic: true},
		{Name: "stress", Run: l.Stress},
		{Name: "linearize", Run: l.Linearize},
	} {
		if c.Run != nil {
			cs = append(cs, c)
		}
	}
	return cs
}
