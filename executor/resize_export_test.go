package executor

// TaskP returns the P that t's M holds, or -1 (tests of SetProcs).
func TaskP(t Task) int {
	if w := t.current(); w != nil {
		if p := w.p.Load(); p != nil {
			return p.id
		}
	}
	return -1
}

// SetResizeHook makes SetProcs call f where it holds a P's tasks on their
// way to the global queue (nil: none). Call it only while no Executor
// runs; it returns a function restoring the previous hook.
func SetResizeHook(f func(step string)) (restore func()) {
	old := resizeHook
	resizeHook = f
	return func() { resizeHook = old }
}

// SetGOMAXPROCSForTest makes sysmon of an executor made with Procs 0 read
// f instead of runtime.GOMAXPROCS(0) (nil: the runtime's). Call it only
// while no Executor runs; it returns a function restoring the previous.
func SetGOMAXPROCSForTest(f func() int) (restore func()) {
	old := gomaxprocsForTest
	gomaxprocsForTest = f
	return func() { gomaxprocsForTest = old }
}

// FollowEvery is how often sysmon looks at GOMAXPROCS (Config.Procs 0).
const FollowEvery = followEvery

// StealerLen is the number of Ps the thieves' Stealer and its victim
// order cover now.
func (e *Executor) StealerLen() int {
	st := e.resizer.stealer.Load()
	if st.Order().Count() != st.Len() {
		return -1
	}
	return st.Len()
}

// TimersOn is the number of timers in P p's heap.
func (e *Executor) TimersOn(p int) int { return e.allPs()[p].timers.Len() }
