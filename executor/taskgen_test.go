package executor_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// staleTaskRejected: on 1 P, a Task that is not the worker's innermost
// running task calls Go while its worker runs another task on the same P,
// in the pTask state, so the status word names the worker and only its
// generation tells the two Tasks apart (issue 25: the task's generation in
// the status word, proofs/tla/TaskGen.tla). nested false: the Task of a
// task that has returned, used by the next task on the P. nested true: a
// task's Task used by a child that the task's group Wait runs inline (the
// "waiting in a group's Wait" case of Task.Go's doc). Either call must
// panic with the stale message and queue nothing. The seeded fault
// StaleGenAccepted (the word compared without its generation) lets the
// call through: it spawns into the P's queue.
func staleTaskRejected(nested bool) scenario {
	return func(*testing.T) error {
		e, err := executor.New(executor.Config{Procs: 1})
		if err != nil {
			return err
		}
		var verdict error
		ran := 0
		use := func(stale executor.Task) {
			defer func() {
				if r := recover(); r == nil {
					verdict = errors.New("Go on a Task that is not the running one did not panic")
				} else if s := fmt.Sprint(r); s != "executor: Task.Go called on a Task whose func has returned (or is waiting in a group's Wait)" {
					verdict = fmt.Errorf("Go on a stale Task panicked with %q", s)
				}
			}()
			stale.Go(func(executor.Task) { ran++ })
		}
		done := make(chan struct{})
		if nested {
			err = e.Go(func(t executor.Task) {
				defer close(done)
				g, _ := t.NewGroup(context.Background())
				g.Go(func(executor.Task) error { use(t); return nil })
				_ = g.Wait()
			})
		} else {
			first := make(chan executor.Task, 1)
			err = e.Go(func(t executor.Task) {
				first <- t
				t.Go(func(executor.Task) { // runs next on the same worker and P
					defer close(done)
					use(<-first)
				})
			})
		}
		if err != nil {
			return err
		}
		<-done
		if err := e.Close(); err != nil {
			return err
		}
		if verdict == nil && ran != 0 {
			verdict = fmt.Errorf("a stale Task's Go ran %d task(s)", ran)
		}
		return verdict
	}
}

func TestStaleTaskRejected(t *testing.T) {
	for _, nested := range []bool{false, true} {
		t.Run(fmt.Sprintf("nested=%v", nested), func(t *testing.T) {
			require.NoError(t, inBubble(t, staleTaskRejected(nested)))
		})
	}
}
