package explore

import (
	"slices"
	"strings"

	"github.com/schedkit/schedkit/atomicx"
)

// End states: every execution that runs to its end (or fails) gets a 64-bit
// fingerprint of where it ended, so that two searches of one scenario can be
// compared on what they reached, not only on their verdicts, with no help
// from the scenario. The fingerprint covers:
//
//   - the final value of every cell, lock and note the threads touched: the
//     last value a load, store, add or swap saw or wrote (a pointer to a
//     named object as its name, since addresses change from one execution
//     to the next), a lock as held or not, a note as woken or cleared;
//   - after a successful CAS, whose new value atomicx does not report, the
//     CAS itself: its thread, its place among that thread's steps and what
//     that thread had seen up to it, which fix the value it wrote;
//   - the virtual clock, the labels of Run.Outcome and Reached, and the
//     failure's message.
//
// A cell is known by its name when it has one (Name), else by the first
// thread, in thread order, that touched it and that thread's step: both are
// the same in every interleaving of one Mazurkiewicz trace, so equivalent
// executions get one fingerprint, and a correct DPOR, which runs one
// execution per trace, reaches the set of fingerprints unbounded DFS does.

// hashString is FNV-1a.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// mix is splitmix64's finalizer: a sum of mixed values hashes a set.
func mix(v uint64) uint64 {
	v ^= v >> 30
	v *= 0xbf58476d1ce4e5b9
	v ^= v >> 27
	v *= 0x94d049bb133111eb
	return v ^ v>>31
}

func mix2(a, b uint64) uint64 { return mix(a*0x9e3779b97f4a7c15 ^ mix(b)) }

// Tags of what a final state records besides a value.
const (
	tagCAS = iota + 1
	tagLocked
	tagUnlocked
	tagWoken
	tagCleared
	tagClock
	tagLabel
	tagFailure
)

// stateScratch is reused from one execution to the next.
type stateScratch struct {
	ids   map[uintptr]uint64 // cell → identity
	ends  map[uintptr]uint64 // cell → final state
	hist  [MaxThreads]uint64 // what each thread has seen so far
	local [MaxThreads]uint64 // each thread's steps so far
}

// endState returns x's fingerprint.
func (x *execution) endState() uint64 {
	sc := &x.e.scratch
	if sc.ids == nil {
		sc.ids, sc.ends = make(map[uintptr]uint64), make(map[uintptr]uint64)
	}
	clear(sc.ids)
	clear(sc.ends)
	sc.hist, sc.local = [MaxThreads]uint64{}, [MaxThreads]uint64{}
	steps, addrs := x.steps, x.addrs
	// Identities: the name of the latest step on a named cell, else the
	// first thread (in thread order) to touch it and its step there.
	for i := len(steps) - 1; i >= 0; i-- {
		if a := addrs[i]; a != 0 && !strings.HasPrefix(steps[i].Cell, "#") {
			if _, ok := sc.ids[a]; !ok {
				sc.ids[a] = hashString(steps[i].Cell)
			}
		}
	}
	for t := range x.threads {
		var k uint64
		for i := range steps {
			if steps[i].Thread != t {
				continue
			}
			if a := addrs[i]; a != 0 {
				if _, ok := sc.ids[a]; !ok {
					sc.ids[a] = mix2(uint64(t)+1, k)
				}
			}
			k++
		}
	}
	for i := range steps {
		s := &steps[i]
		a, t := addrs[i], s.Thread
		k := sc.local[t]
		sc.local[t]++
		if !s.Done {
			continue
		}
		val := s.Value
		if s.Ref != "" {
			val = hashString(s.Ref)
		}
		id := sc.ids[a]
		seen := sc.hist[t]
		sc.hist[t] = mix2(seen, mix2(uint64(s.Op)<<56^id, val))
		if a == 0 {
			continue // the clock: its final reading is counted below
		}
		switch s.Op {
		case atomicx.OpLoad, atomicx.OpStore, atomicx.OpAdd, atomicx.OpSwap, atomicx.OpRead, atomicx.OpWrite:
			sc.ends[a] = val
		case atomicx.OpCAS:
			if val == 1 {
				sc.ends[a] = mix2(tagCAS, mix2(uint64(t)<<32|k, seen))
			}
		case atomicx.OpLock:
			sc.ends[a] = tagLocked
		case atomicx.OpUnlock:
			sc.ends[a] = tagUnlocked
		case atomicx.OpNoteWakeup:
			sc.ends[a] = tagWoken
		case atomicx.OpNoteClear:
			sc.ends[a] = tagCleared
		}
	}
	fp := mix2(tagClock, uint64(x.clock))
	for a, v := range sc.ends {
		fp += mix2(sc.ids[a], v)
	}
	for _, l := range x.labels {
		fp += mix2(tagLabel, hashString(l))
	}
	if x.fail != nil {
		fp += mix2(tagFailure, hashString(x.fail.Err.Error()))
	}
	return fp
}

// endStates turns the fingerprints off, for the benchmark that prices them.
var endStates = true

// addState counts x's end state.
func (e *explorer) addState(x *execution) {
	if !endStates {
		return
	}
	fp := x.endState()
	if _, ok := e.states[fp]; ok {
		return
	}
	e.states[fp] = struct{}{}
	e.res.States++
	e.res.StateHash += mix(fp)
}

// stateList returns the fingerprints, sorted.
func (e *explorer) stateList() []uint64 {
	l := make([]uint64, 0, len(e.states))
	for fp := range e.states {
		l = append(l, fp)
	}
	slices.Sort(l)
	return l
}
