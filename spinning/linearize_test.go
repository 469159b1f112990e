package spinning_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
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
	histories, ops, concurrent, acquires, emptyAcquires, releases int
}

// runLinHistory records one history of cfg.ms Ms on a Sched of cfg.procs
// Ps and checks it.
func runLinHistory(name string, cfg linConfig, h int, st *linStats) (linearize.Result, error) {
	s, err := spinning.New(spinning.Config{Procs: cfg.procs, Work: func() bool { return false }})
	if err != nil {
		return linearize.Result{}, err
	}
	pool := cfg.newPool(s)
	rec := linearize.New(name)
	var ready atomic.Int32
	var wg sync.WaitGroup
	for k := range cfg.ms {
		m := s.NewM()
		c := rec.Client(k)
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(cfg.seed, uint64(h)<<8|uint64(k)))
			for ready.Add(1); ready.Load() < int32(cfg.ms); {
				runtime.Gosched() // start together, or the history is sequential
			}
			for range cfg.ops {
				if rng.IntN(4) == 0 {
					runtime.Gosched()
				}
				switch {
				case rng.IntN(4) == 0:
					c.Begin(linIn{kind: linNPIdle})
					c.End(linOut{n: pool.NPIdle()})
				case m.P() == spinning.NoP:
					c.Begin(linIn{kind: linAcquire})
					c.End(linOut{p: pool.AcquireP(m)})
				default:
					in := linIn{kind: linRelease, p: m.P()}
					c.Begin(in)
					c.End(linOut{ok: pool.ReleaseP(m)})
				}
			}
		})
	}
	wg.Wait()
	res, err := rec.Check(linModel(cfg.procs), 10*time.Second)
	st.histories++
	st.ops += res.Operations
	st.concurrent += res.Concurrent
	ops, _ := rec.Operations()
	for _, op := range ops {
		switch op.Input.(linIn).kind {
		case linAcquire:
			st.acquires++
			if op.Output.(linOut).p == spinning.NoP {
				st.emptyAcquires++
			}
		case linRelease:
			st.releases++
		}
	}
	return res, err
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
// must be linearizable. A timeout is a failure of its own kind.
func TestLinearizable(t *testing.T) {
	cfg := linDefaultConfig()
	t.Logf("seed %d", cfg.seed)
	var st linStats
	for h := range cfg.histories {
		_, err := runLinHistory(fmt.Sprintf("%s-h%d", t.Name(), h), cfg, h, &st)
		if err != nil {
			t.Fatalf("history %d (seed %d): %v", h, cfg.seed, err)
		}
	}
	t.Logf("coverage: %d of %d operations overlapped another M's; %d AcquireP (%d found no idle P), %d ReleaseP",
		st.concurrent, st.ops, st.acquires, st.emptyAcquires, st.releases)
	require.Positive(t, st.emptyAcquires, "no AcquireP ever found the set empty")
	t.Logf("spinning linearizability: %d histories, %d operations, all linearizable", st.histories, st.ops)
}

// TestLinearizeCatchesBrokenPool proves the check can fail: a count that
// is wrong sequentially, and an AcquireP with a check-then-act race, which
// is caught once operations overlap (skipped, saying so, where the machine
// gives too little parallelism).
func TestLinearizeCatchesBrokenPool(t *testing.T) {
	cases := []struct {
		name            string
		newPool         func(*spinning.Sched) linPool
		concurrencyOnly bool
	}{
		{"NPIdle counts the caller's P", func(s *spinning.Sched) linPool { return linCountsOwn{linReal{s}} }, false},
		{"AcquireP reports the P it peeked", func(s *spinning.Sched) linPool { return linPeekAcquire{linReal{s}} }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.concurrencyOnly && runtime.GOMAXPROCS(0) < 2 {
				t.Skip("GOMAXPROCS is 1: operations do not overlap")
			}
			cfg := linDefaultConfig()
			cfg.newPool = tc.newPool
			var st linStats
			start := time.Now()
			for h := 0; ; h++ {
				res, err := runLinHistory(fmt.Sprintf("%s-h%d", t.Name(), h), cfg, h, &st)
				if err != nil {
					if res.File != "" {
						t.Cleanup(func() { os.Remove(res.File) })
					}
					require.ErrorIs(t, err, linearize.ErrNotLinearizable, "a timeout is not a catch")
					require.Equal(t, porcupine.Illegal, res.Outcome)
					require.FileExists(t, res.File)
					t.Logf("caught in history %d after %d operations (%d overlapping): %v", h, st.ops, st.concurrent, err)
					return
				}
				switch {
				case !tc.concurrencyOnly && h >= 4:
					t.Fatalf("%d histories of a pool broken even sequentially were all linearizable", st.histories)
				case st.concurrent >= 20_000:
					t.Fatalf("%d histories (%d operations, %d overlapping) of a broken pool were all linearizable",
						st.histories, st.ops, st.concurrent)
				case h >= 2000 || time.Since(start) > 8*time.Second:
					t.Skipf("not caught, but only %d of %d operations overlapped: too little parallelism here", st.concurrent, st.ops)
				}
			}
		})
	}
}

// linearizeSpinning runs a few hundred histories and returns the first
// failure, for the kill matrix.
func linearizeSpinning(t testing.TB) error {
	cfg := linDefaultConfig()
	cfg.histories = 300
	cfg.seed = 1
	var st linStats
	for h := range cfg.histories {
		if _, err := runLinHistory(fmt.Sprintf("%s-h%d", t.Name(), h), cfg, h, &st); err != nil {
			return err
		}
	}
	return nil
}
