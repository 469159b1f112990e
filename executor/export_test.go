package executor

import "time"

// ExploreAll runs the explorer scenarios of explore_test.go for the kill
// matrix; applicable is false without -tags schedcheck.
func ExploreAll() (applicable bool, err error) { return exploreAll() }

// SetNestHook makes every Wait that runs a task inline report the nesting
// depth of Waits on its M to f (nil: none). Call it only while no Executor
// runs; it returns a function restoring the previous hook.
func SetNestHook(f func(depth int)) (restore func()) {
	old := nestHook
	nestHook = f
	return func() { nestHook = old }
}

// HelpNestCap is the nesting of Waits on an M past which a Wait helps only
// with its own group's children.
const HelpNestCap = helpNestCap

// YieldEvery is how many tasks an M runs between runtime.Gosched calls.
const YieldEvery = yieldEvery

// RoomWaiters is the number of submitters waiting for room under
// Config.MaxQueued.
func (e *Executor) RoomWaiters() int { return int(e.nwait.Load()) }

// CheckFreeLists reports a record on a free list that is not zeroed or is
// on a list twice (gfree.go). Call it only after Close.
func (e *Executor) CheckFreeLists() error { return e.checkFreeLists() }

// GlobalFree returns the global free list's length and the records it has
// handed out, taken in and dropped at its cap.
func (e *Executor) GlobalFree() (size int, taken, added, dropped uint64) { return e.gfreeStats() }

// MaxGFree bounds a P's free task records (gfree.go).
const MaxGFree = maxGFree

// GFreeKeep is what a trim of the global free list leaves on it.
const GFreeKeep = gfreeKeep

// SetSysmonLate makes sysmon's sleeps on its Go timer at a call's pace
// last d longer in the executors made until restore is called, as a
// coarse Go timer does, and its sleeps on the OS's timer exact on the Go
// clock (a bubble's); not concurrently with New.
func SetSysmonLate(d time.Duration) (restore func()) {
	old := sysmonLateForTest
	sysmonLateForTest = d
	return func() { sysmonLateForTest = old }
}

// Goroutines is the executor's goroutines not yet exited: its Ms, sysmon
// and its spares.
func (e *Executor) Goroutines() int { return int(e.live.Load()) }
