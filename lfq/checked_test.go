//go:build schedkit_checked

package lfq_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/lfq"
)

// The schedkit_checked build: owner calls that overlap on one ring panic,
// naming both calls. Run with go test -tags schedkit_checked ./lfq/ (and
// with schedcheck too for the explored overlaps).

func TestCheckedOwnerCallsPanicWhileAnotherRuns(t *testing.T) {
	var r, dst lfq.Ring[int]
	x := 1
	exit := lfq.EnterOwner(&r) // another goroutine is inside Get
	msg := "running on the same ring: one goroutine at a time may act as its owner"
	for name, call := range map[string]func(){
		"Ring.Put":                        func() { r.Put(&x, nil) },
		"Ring.PutBatch":                   func() { r.PutBatch([]*int{&x}) },
		"Ring.Get":                        func() { r.Get() },
		"Ring.Drain":                      func() { r.Drain(nil) },
		"Ring.StealHalf (into this ring)": func() { dst.StealHalf(&r) },
	} {
		assert.PanicsWithValue(t, "lfq: "+name+" called while Ring.Get is "+msg, call, name)
	}
	exit()
	assert.Nil(t, r.Put(&x, nil), "after the other call returned, the owner may go on")
	assert.Same(t, &x, r.Get())
}

func TestCheckedTwoThievesIntoOneRingPanic(t *testing.T) {
	var victim, dst lfq.Ring[int]
	victim.PutBatch(items(0, 4))
	exit := lfq.EnterStealInto(&dst) // another thief is stealing into dst
	assert.PanicsWithValue(t, "lfq: Ring.StealHalf (into this ring) called while Ring.StealHalf (into this ring) is "+
		"running on the same ring: one goroutine at a time may act as its owner", func() { victim.StealHalf(&dst) })
	x := 1
	assert.Panics(t, func() { dst.Put(&x, nil) }, "dst's owner putting while a thief steals into it")
	exit()
	assert.Equal(t, 4, victim.Len(), "the refused steal took nothing")
	require.NotNil(t, victim.StealHalf(&dst))
	assert.Equal(t, 1, dst.Len())
}

// The non-owner operations take no guard: steals from a ring and Len run
// beside its owner's calls.
func TestCheckedStealAndLenRunBesideTheOwner(t *testing.T) {
	var r, thief lfq.Ring[int]
	r.PutBatch(items(0, 4))
	exit := lfq.EnterOwner(&r)
	assert.Equal(t, 4, r.Len())
	assert.NotNil(t, r.StealHalf(&thief))
	exit()
}

// Under the explorer (with -tags schedcheck too), real overlapping owner
// calls: two goroutines putting into one ring, and a thief stealing into a
// ring while its owner puts. Some interleaving must panic, naming both.
func TestCheckedExploredOverlapsPanic(t *testing.T) {
	cases := map[string]func() explore.Run{
		"two owners": func() explore.Run {
			r := new(lfq.Ring[int])
			a, b := 1, 2
			return explore.Run{Threads: []func(){func() { r.Put(&a, nil) }, func() { r.Put(&b, nil) }}}
		},
		"steal into a ring its owner puts into": func() explore.Run {
			var victim, dst lfq.Ring[int]
			victim.PutBatch(items(0, 2))
			x := 9
			return explore.Run{Threads: []func(){func() { dst.Put(&x, nil) }, func() { victim.StealHalf(&dst) }}}
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := explore.Explore(explore.Options{Name: "lfq-checked-" + strings.ReplaceAll(name, " ", "-")}, build)
			if errors.Is(err, explore.ErrNoSchedcheck) {
				t.Skip("needs -tags schedcheck too")
			}
			require.NoError(t, err)
			require.NotNil(t, res.Failure, "no interleaving of overlapping owner calls panicked (%d executions)", res.Executions)
			var pe *explore.PanicError
			require.ErrorAs(t, res.Failure.Err, &pe)
			assert.Contains(t, fmt.Sprint(pe.Value), "is running on the same ring")
			t.Logf("caught after %d executions: %v", res.Executions, pe.Value)
		})
	}
}
