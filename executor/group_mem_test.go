package executor_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/executor"
)

// TestGroupOutsideKeepsNoBytesPerChild (issue 22, section 4): an outside
// group keeps nothing per finished child, Wait or no Wait. Right after
// n children have finished the heap holds about 70 bytes more per child:
// each child's 64-byte record (and its slot) on the executor's global
// free list, kept for the next burst of outside tasks, as for any outside
// task (Executor.Go). Garbage collections trim the list back to
// executor.GFreeKeep records (two trims: the first notes what no one took
// since, the second drops it), and then the heap, before the group's
// Wait, holds only the free records the executor keeps whatever ran
// (GFreeKeep on the global list, up to MaxGFree on each P's: 64 KiB and
// 32 KiB a P), spread over n, and 4 bytes more per child at most: a
// group that kept its finished children would hold 64. The test
// collects until the list is trimmed (trims run
// after each GC, on the cleanup goroutine), so its verdict does not
// depend on time.
func TestGroupOutsideKeepsNoBytesPerChild(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprint("procs=", procs), func(t *testing.T) { require.NoError(t, groupBytesPerChild(t, procs)) })
	}
}

// groupBytesPerChild is the test on procs Ps, for the kill matrix
// (groupmem, groupmem2: OutsideGroupKeepsKids).
func groupBytesPerChild(t *testing.T, procs int) error {
	const n = 20000
	e, err := executor.New(executor.Config{Procs: procs})
	if err != nil {
		return err
	}
	done := make(chan struct{}, n)
	child := func(executor.Task) error { done <- struct{}{}; return nil }
	g, _ := e.NewGroup(context.Background())
	h0 := heapAfterGC()
	for range n {
		g.Go(child)
	}
	for range n {
		<-done
	}
	h1 := heapAfterGC()
	size, _, _, _ := e.GlobalFree()
	for i := 0; i < 100 && size > executor.GFreeKeep; i++ {
		runtime.GC()
		runtime.Gosched() // let the cleanup goroutine trim
		size, _, _, _ = e.GlobalFree()
	}
	if size > executor.GFreeKeep {
		return errors.Join(fmt.Errorf("the global free list holds %d records after 100 collections, want at most %d", size, executor.GFreeKeep), e.Close())
	}
	h2 := heapAfterGC()
	err = g.Wait()
	h3 := heapAfterGC()
	per := func(h uint64) float64 { return (float64(h) - float64(h0)) / n }
	t.Logf("heap per finished child (%d Ps): %.1f B once finished, %.1f B once the free list is trimmed (before Wait), %.1f B after Wait",
		procs, per(h1), per(h2), per(h3))
	kept := float64((executor.GFreeKeep+procs*executor.MaxGFree)*64) / n // the free records' share
	if err == nil && per(h2) >= kept+4 {
		err = fmt.Errorf("an outside group keeps %.1f B per finished child before its Wait, want under %.1f (the free lists' %.1f and 4)", per(h2), kept+4, kept)
	}
	runtime.KeepAlive(g)
	return errors.Join(err, e.Close())
}

func heapAfterGC() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
