package bench

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/schedkit/schedkit/bench/suite"
)

// The chain and skewed workloads fail their benchmark when a task runs
// other than once; suite.Tally is that check. These tests drive it by hand
// with broken runs (a task run twice, a refused submit) and a correct one.

// runAll runs every strand's quota, from one goroutine per strand.
func runAll(tl *suite.Tally) {
	var wg sync.WaitGroup
	for _, s := range tl.Strands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s.Run() {
			}
		}()
	}
	wg.Wait()
}

func TestTallyCorrectRoundsPass(t *testing.T) {
	tl := suite.NewTally(3, 100) // 34, 33, 33
	for round := range 3 {
		if err := tl.Arm(); err != nil {
			t.Fatalf("round %d: Arm: %v", round, err)
		}
		runAll(tl)
		if err := tl.Wait(); err != nil {
			t.Fatalf("round %d: Wait: %v", round, err)
		}
	}
	if err := tl.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestTallyRunStopsAtQuota(t *testing.T) {
	tl := suite.NewTally(1, 5)
	if err := tl.Arm(); err != nil {
		t.Fatal(err)
	}
	s := tl.Strands[0]
	for i := range 4 {
		if !s.Run() {
			t.Fatalf("run %d of 5 says the strand wants no more", i+1)
		}
	}
	if s.Run() {
		t.Fatal("the 5th run of 5 says the strand wants more")
	}
	if err := tl.Wait(); err != nil {
		t.Fatal(err)
	}
}

// A chain whose hop ran twice forks: its count passes the quota before
// Wait returns, or after it, before the next round.
func TestTallyCatchesDuplicate(t *testing.T) {
	t.Run("before Wait", func(t *testing.T) {
		tl := suite.NewTally(2, 10)
		if err := tl.Arm(); err != nil {
			t.Fatal(err)
		}
		runAll(tl)
		tl.Strands[1].Run() // the duplicate
		err := tl.Wait()
		if err == nil || !strings.Contains(err.Error(), "ran twice") {
			t.Fatalf("Wait = %v, want a task that ran twice", err)
		}
	})
	t.Run("after Wait", func(t *testing.T) {
		tl := suite.NewTally(2, 10)
		if err := tl.Arm(); err != nil {
			t.Fatal(err)
		}
		runAll(tl)
		if err := tl.Wait(); err != nil {
			t.Fatal(err)
		}
		tl.Strands[0].Run() // a late duplicate
		err := tl.Arm()
		if err == nil || !strings.Contains(err.Error(), "ran twice") {
			t.Fatalf("Arm = %v, want a task that ran twice", err)
		}
	})
}

// A pool that refuses a submit ends the strand with the error: Wait returns
// instead of waiting for a task that will never run.
func TestTallyFailEndsRound(t *testing.T) {
	tl := suite.NewTally(2, 10)
	if err := tl.Arm(); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("pool refused the submit")
	for tl.Strands[0].Run() {
	}
	tl.Strands[1].Run()
	tl.Strands[1].Fail(refused)
	if err := tl.Wait(); !errors.Is(err, refused) {
		t.Fatalf("Wait = %v, want %v", err, refused)
	}
}

func TestTallyMisuse(t *testing.T) {
	for _, c := range []struct{ n, total int }{{0, 10}, {3, 2}, {-1, 5}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "NewTally") {
					t.Errorf("NewTally(%d, %d): recovered %v, want a panic naming NewTally", c.n, c.total, r)
				}
			}()
			suite.NewTally(c.n, c.total)
		}()
	}
	tl := suite.NewTally(1, 1)
	if err := tl.Arm(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "Tally.Arm") {
			t.Errorf("second Arm: recovered %v, want a panic naming Tally.Arm", r)
		}
	}()
	_ = tl.Arm()
}
