package future_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/future"
	"github.com/schedkit/schedkit/internal/killmatrix"
)

// Bar item 2: futures made, waited on and completed in random orders
// against a sequential model, on a real executor in a synctest bubble:
// after every step settle (fake time past sysmon and the steal delay, then
// synctest.Wait) returns only when every goroutine (Ms,
// sysmon, parked tasks, outside waiters) is durably blocked, so the model's
// verdict ("every waiter of a set future has its result exactly once, no
// waiter of a pending one has any, Done and the Ready channels agree, the
// parked tasks are the waiters and the gated funcs, each waiter readied by
// its finishing task") is taken where nothing more can happen.

// mOp is one step of a program.
type mOp struct {
	kind   int // 0 new future, 1 task waiter, 2 outside waiter, 3 Ready channel, 4 set, 5 All waiter
	fut    int
	via    bool  // new: spawned by a task (future.Go), else Submit
	how    int   // set: 0 value, 1 error, 2 panic, 3 Goexit
	subset []int // All: the futures waited, in order
}

// mFuture is the model's future: whether its gate is open and how.
type mFuture struct {
	set bool
	how int
}

// mWaiter is a waiter: the futures it waits for (one, or All's list),
// whether it is a task, and what it got.
type mWaiter struct {
	futs []int
	task bool
	got  atomic.Int32
	vals []int
	err  error
}

// mResult is the value and error future i's func returns for how.
func mWant(i, how int) (int, func(error) bool) {
	switch how {
	case 0:
		return 100 + i, func(err error) bool { return err == nil }
	case 1:
		return 0, func(err error) bool { return errors.Is(err, mErr(i)) }
	case 2:
		return 0, func(err error) bool {
			var pe *executor.PanicError
			return errors.As(err, &pe) && !pe.Goexit && pe.Value == mErr(i)
		}
	}
	return 0, func(err error) bool {
		var pe *executor.PanicError
		return errors.As(err, &pe) && pe.Goexit
	}
}

type mErr int

func (e mErr) Error() string { return fmt.Sprintf("future %d failed", int(e)) }

// drawProgram draws a program of steps.
func drawProgram(rt *rapid.T) (procs int, ops []mOp) {
	procs = rapid.IntRange(1, 2).Draw(rt, "procs")
	n := rapid.IntRange(1, 25).Draw(rt, "steps")
	futs, set := 0, map[int]bool{}
	for range n {
		kind := 0
		if futs > 0 {
			kind = rapid.IntRange(0, 5).Draw(rt, "kind")
		}
		op := mOp{kind: kind}
		switch kind {
		case 0:
			op.via = rapid.Bool().Draw(rt, "viaGo")
			futs++
		case 4:
			var open []int
			for i := range futs {
				if !set[i] {
					open = append(open, i)
				}
			}
			if len(open) == 0 {
				continue
			}
			op.fut = rapid.SampledFrom(open).Draw(rt, "set")
			op.how = rapid.IntRange(0, 3).Draw(rt, "how")
			set[op.fut] = true
		case 5:
			k := rapid.IntRange(1, 3).Draw(rt, "allLen")
			for range k {
				op.subset = append(op.subset, rapid.IntRange(0, futs-1).Draw(rt, "allFut"))
			}
		default:
			op.fut = rapid.IntRange(0, futs-1).Draw(rt, "fut")
		}
		ops = append(ops, op)
	}
	return procs, ops
}

// runProgram runs ops on a fresh executor in the running bubble, checking
// the model after each step, then sets every pending future and closes.
func runProgram(procs int, ops []mOp) error {
	e, err := executor.New(executor.Config{Procs: procs})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		model   []mFuture
		gates   []*gate
		futs    []*future.Future[int]
		waiters []*mWaiter
		chans   []<-chan struct{}
		chanOf  []int
		readied int // the gates' readies from outside
		goexits int
	)
	wait := func(w *mWaiter, t executor.Task) {
		if len(w.futs) == 1 {
			v, err := futs[w.futs[0]].Wait(t)
			w.vals, w.err = []int{v}, err
		} else {
			fs := make([]*future.Future[int], len(w.futs))
			for i, f := range w.futs {
				fs[i] = futs[f]
			}
			w.vals, w.err = future.All(t, fs...)
		}
		w.got.Add(1)
	}
	check := func(step int) error {
		settle()
		parked := 0
		for i, f := range futs {
			if f.Done() != model[i].set {
				return fmt.Errorf("step %d: future %d Done %v, model set %v", step, i, f.Done(), model[i].set)
			}
			if !model[i].set {
				parked++ // its func, on its gate
			}
		}
		for j, w := range waiters {
			all := true
			for _, f := range w.futs {
				all = all && model[f].set
			}
			n := w.got.Load()
			if !all {
				if n != 0 {
					return fmt.Errorf("step %d: waiter %d on %v has a result before all were set", step, j, w.futs)
				}
				if w.task {
					parked++
				}
				continue
			}
			if n != 1 {
				return fmt.Errorf("step %d: waiter %d (task %v) on %v got %d results, want 1", step, j, w.task, w.futs, n)
			}
			var first func(error) bool
			for k, f := range w.futs {
				v, ok := mWant(f, model[f].how)
				if w.vals[k] != v {
					return fmt.Errorf("step %d: waiter %d: value %d of future %d, want %d", step, j, w.vals[k], f, v)
				}
				if !ok(nil) && first == nil {
					first = ok
				}
			}
			if first == nil && w.err != nil || first != nil && !first(w.err) {
				return fmt.Errorf("step %d: waiter %d on %v: error %v, not the first failure's", step, j, w.futs, w.err)
			}
		}
		for k, ch := range chans {
			closed := false
			select {
			case <-ch:
				closed = true
			default:
			}
			if f := chanOf[k]; closed != model[f].set {
				return fmt.Errorf("step %d: Ready channel of future %d closed %v, model set %v", step, f, closed, model[f].set)
			}
		}
		s := e.Stats()
		if s.Parked != parked || s.OutsideReadies != uint64(readied) || s.Ms > procs+2 {
			return fmt.Errorf("step %d: Parked %d (model %d), OutsideReadies %d (model %d: the gates', the waiters' come from the finishing task), Ms %d (at most %d)",
				step, s.Parked, parked, s.OutsideReadies, readied, s.Ms, procs+2)
		}
		return nil
	}
	setFut := func(i, how int) {
		model[i] = mFuture{set: true, how: how}
		if how == 3 {
			goexits++
		}
		if gates[i].release(executor.Task{}) {
			readied++
		}
	}
	for step, op := range ops {
		switch op.kind {
		case 0:
			i := len(futs)
			g := new(gate)
			model, gates = append(model, mFuture{}), append(gates, g)
			fn := func(t executor.Task) (int, error) {
				g.wait(t)
				v, _ := mWant(i, model[i].how)
				switch model[i].how {
				case 1:
					return 0, mErr(i)
				case 2:
					panic(mErr(i))
				case 3:
					runtimeGoexit()
				}
				return v, nil
			}
			var f *future.Future[int]
			if op.via {
				if err := e.Go(func(t executor.Task) { f = future.Go(t, fn) }); err != nil {
					return err
				}
				settle()
			} else if f, err = future.Submit(e, fn); err != nil {
				return err
			}
			futs = append(futs, f)
		case 1, 5:
			w := &mWaiter{futs: []int{op.fut}, task: true}
			if op.kind == 5 {
				w.futs = op.subset
			}
			waiters = append(waiters, w)
			if err := e.Go(func(t executor.Task) { wait(w, t) }); err != nil {
				return err
			}
		case 2:
			w := &mWaiter{futs: []int{op.fut}}
			waiters = append(waiters, w)
			f := futs[op.fut]
			go func() {
				v, err := f.WaitContext(ctx)
				if !errors.Is(err, context.Canceled) {
					w.vals, w.err = []int{v}, err
					w.got.Add(1)
				}
			}()
		case 3:
			chans, chanOf = append(chans, futs[op.fut].Ready()), append(chanOf, op.fut)
		case 4:
			setFut(op.fut, op.how)
		}
		if err := check(step); err != nil {
			return err
		}
	}
	for i := range model {
		if !model[i].set {
			setFut(i, 0)
		}
	}
	if err := check(len(ops)); err != nil {
		return err
	}
	err = e.Close()
	var pe *executor.PanicError
	switch {
	case goexits == 0 && err != nil:
		return fmt.Errorf("Close: %v, want nil (panics are the futures' results)", err)
	case goexits != 0 && !errors.As(err, &pe):
		return fmt.Errorf("Close: %v, want the %d Goexits reported", err, goexits)
	}
	return nil
}

// checkModel is the property: a program drawn, then run in its own bubble.
func checkModel(t *testing.T) func(*rapid.T) {
	return func(rt *rapid.T) {
		procs, ops := drawProgram(rt)
		if err := bubble(t, func() error { return runProgram(procs, ops) }); err != nil {
			rt.Fatalf("%v", err)
		}
	}
}

func TestModel(t *testing.T) {
	rapid.Check(t, checkModel(t))
}

// killByModel is the model as a kill-matrix checker: rapid on its fixed
// seed (proptest.ExpectFailure).
func killByModel(t *testing.T) error { return killmatrix.ByModel(t, checkModel(t)) }
