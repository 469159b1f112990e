package spinning_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/spinning"
)

// Bar item 6, where it applies (doc.go says why only here): the idle P set
// with its counter, hammered by several Ms at once, checked by porcupine
// against a sequential stack of idle Ps. Each M runs AcquireP, ReleaseP and
// NPIdle; AcquireP must return the P made idle last, or none only when none
// is idle, and no P may be held by two Ms. Wakep, DropSpinning and the
// spinning rule are multi-step protocols by design and are covered by the
// explorer and TLC instead.

type linKind uint8

const (
	linAcquire linKind = iota
	linRelease
	linNPIdle
)

// linIn is an operation's input: for ReleaseP the P released.
type linIn struct {
	kind linKind
	p    int
}

// linOut is an operation's output: AcquireP's P (NoP: none), ReleaseP's
// result, NPIdle's count.
type linOut struct {
	p  int
	ok bool
	n  int
}

// linState is the idle P stack, encoded one digit per P from the bottom
// (Procs <= 9), so that states compare and hash as strings.
type linState string

func linStep(state, input, output any) (bool, any) {
	s, in, out := state.(linState), input.(linIn), output.(linOut)
	switch in.kind {
	case linAcquire:
		if len(s) == 0 {
			return out.p == spinning.NoP, s
		}
		top := int(s[len(s)-1] - '0')
		return out.p == top, s[:len(s)-1]
	case linRelease:
		if !out.ok || strings.IndexByte(string(s), byte('0'+in.p)) >= 0 {
			return false, s // a P released while idle: held twice
		}
		return true, s + linState(rune('0'+in.p))
	case linNPIdle:
		return out.n == len(s), s
	}
	panic(fmt.Sprintf("linStep: unknown operation %d", in.kind))
}

func linModel(procs int) porcupine.Model {
	var init linState
	for p := procs - 1; p >= 0; p-- {
		init += linState(rune('0' + p))
	}
	return porcupine.Model{
		Init:  func() any { return init },
		Step:  linStep,
		Equal: func(a, b any) bool { return a.(linState) == b.(linState) },
		DescribeOperation: func(input, output any) string {
			in, out := input.(linIn), output.(linOut)
			switch in.kind {
			case linAcquire:
				return fmt.Sprintf("AcquireP() -> %d", out.p)
			case linRelease:
				return fmt.Sprintf("ReleaseP(P %d) -> %v", in.p, out.ok)
			}
			return fmt.Sprintf("NPIdle() -> %d", out.n)
		},
		DescribeState: func(state any) string { return fmt.Sprintf("idle Ps (bottom to top) [%s]", string(state.(linState))) },
	}
}

// linPool is the surface under test; the broken variants wrap the real one.
type linPool interface {
	AcquireP(m *spinning.M) int
	ReleaseP(m *spinning.M) bool
	NPIdle() int
}

type linReal struct{ s *spinning.Sched }

func (r linReal) AcquireP(m *spinning.M) int {
	if m.AcquireP() {
		return m.P()
	}
	return spinning.NoP
}
func (r linReal) ReleaseP(m *spinning.M) bool { return m.ReleaseP() }
func (r linReal) NPIdle() int                 { return r.s.NPIdle() }

// linPeekAcquire reads the idle set, then acquires, and reports the P it
// read: right in every sequential run, wrong when another M takes that P in
// between (two Ms then report the same P).
type linPeekAcquire struct{ linReal }

func (r linPeekAcquire) AcquireP(m *spinning.M) int {
	idle := spinning.IdlePs(r.s)
	runtime.Gosched()
	if !m.AcquireP() || len(idle) == 0 {
		return spinning.NoP
	}
	return idle[len(idle)-1]
}

// linCountsOwn counts the caller's P as idle: wrong even sequentially.
type linCountsOwn struct{ linReal }

func (r linCountsOwn) NPIdle() int { return r.s.NPIdle() + 1 }

type linConfig struct {
	histories, ops, ms, procs int
	seed                      uint64
	newPool                   func(*spinning.Sched) linPool
}

type linStats struct {
	acquires, emptyAcquires, releases int
}

// linStress is the series cfg describes: cfg.ms Ms on a Sched of
// cfg.procs Ps, each running AcquireP, ReleaseP and NPIdle; st counts what
// its histories do.
func linStress(name string, cfg linConfig, st *linStats) *linearize.Stress[linIn, linOut] {
	return &linearize.Stress[linIn, linOut]{
		Name:    name,
		Seed:    cfg.seed,
		Timeout: 10 * time.Second,
		Setup: func(int, *rand.Rand) linearize.History[linIn, linOut] {
			s, err := spinning.New(spinning.Config{Procs: cfg.procs, Work: func() bool { return false }})
			if err != nil {
				panic(err)
			}
			pool := cfg.newPool(s)
			threads := make([]func(*linearize.Worker[linIn, linOut]), cfg.ms)
			for k := range threads {
				threads[k] = linM(pool, s.NewM(), cfg.ops)
			}
			return linearize.History[linIn, linOut]{Model: linModel(cfg.procs), Threads: threads}
		},
		Tally: func(ops []linearize.Op[linIn, linOut]) {
			for _, op := range ops {
				switch op.Input.kind {
				case linAcquire:
					st.acquires++
					if op.Output.p == spinning.NoP {
						st.emptyAcquires++
					}
				case linRelease:
					st.releases++
				}
			}
		},
	}
}

// linM is one M's thread: ops operations on pool.
func linM(pool linPool, m *spinning.M, ops int) func(*linearize.Worker[linIn, linOut]) {
	return func(w *linearize.Worker[linIn, linOut]) {
		for range w.Ops(ops) {
			w.Yield(4)
			switch {
			case w.Rand.IntN(4) == 0:
				w.Begin(linIn{kind: linNPIdle})
				w.End(linOut{n: pool.NPIdle()})
			case m.P() == spinning.NoP:
				w.Begin(linIn{kind: linAcquire})
				w.End(linOut{p: pool.AcquireP(m)})
			default:
				w.Begin(linIn{kind: linRelease, p: m.P()})
				w.End(linOut{ok: pool.ReleaseP(m)})
			}
		}
	}
}

func linDefaultConfig() linConfig {
	cfg := linConfig{histories: 2000, ops: 100, ms: 4, procs: 2, seed: rand.Uint64(),
		newPool: func(s *spinning.Sched) linPool { return linReal{s} }}
	if testing.Short() {
		cfg.histories = 200
	}
	return cfg
}

// TestLinearizable checks many short histories of four Ms on two Ps; each
// must be linearizable. A check that spends its step budget is neither a
// pass nor a fail: the history is recorded again smaller
// (linearize.Stress.Run).
func TestLinearizable(t *testing.T) {
	cfg := linDefaultConfig()
	var st linStats
	sum := linStress(t.Name(), cfg, &st).CheckAll(t, cfg.histories)
	t.Logf("coverage: %d AcquireP (%d found no idle P), %d ReleaseP", st.acquires, st.emptyAcquires, st.releases)
	require.Positive(t, st.emptyAcquires, "no AcquireP ever found the set empty")
	t.Logf("spinning linearizability: %d histories, %d operations, all linearizable", sum.Histories, sum.Operations)
}

// TestLinearizeCatchesBrokenPool proves the check can fail: a count that
// is wrong sequentially, and an AcquireP with a check-then-act race, which
// is caught once operations overlap (skipped, saying so, where the machine
// gives too little parallelism).
func TestLinearizeCatchesBrokenPool(t *testing.T) {
	cases := []struct {
		name    string
		newPool func(*spinning.Sched) linPool
		catch   linearize.Catch
	}{
		{"NPIdle counts the caller's P", func(s *spinning.Sched) linPool { return linCountsOwn{linReal{s}} }, linearize.Catch{Within: 5}},
		{"AcquireP reports the P it peeked", func(s *spinning.Sched) linPool { return linPeekAcquire{linReal{s}} }, linearize.Catch{RaceOnly: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := linDefaultConfig()
			cfg.newPool = tc.newPool
			linStress(t.Name(), cfg, new(linStats)).Catches(t, tc.catch)
		})
	}
}

// linearizeSpinning runs a few hundred histories and returns the first
// failure, for the kill matrix.
func linearizeSpinning(t testing.TB) error {
	cfg := linDefaultConfig()
	cfg.histories = 300
	cfg.seed = 1
	return linStress(t.Name(), cfg, new(linStats)).FirstFailure(cfg.histories)
}
