package globalq_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit/globalq"
	"github.com/schedkit/schedkit/internal/watchdog"
)

// stressConfig describes one run of the exactly-once stress harness.
type stressConfig struct {
	items     int                                 // ids 0..items-1
	producers int                                 // producer k puts ids k, k+producers, ... in that order
	consumers int                                 // goroutines that Get and GetBatch
	readers   int                                 // goroutines that read Len and Empty without the lock
	seed      uint64                              // for the goroutines' choices
	newQueue  func() queueUnderTest               // the queue under test
	consume   func(counts []atomic.Int32, id int) // counts one consumption; nil: counts[id]++
}

// stressResult is what the harness observed.
type stressResult struct {
	counts   []atomic.Int32 // counts[id]: how many times id was consumed
	leftover []int          // items still in the queue when every goroutine had stopped
	finalLen int            // Len() then
	// fifo lists FIFO violations seen by consumers (the first few): a
	// consumer took an item of a producer that is older than one of the same
	// producer it took before.
	fifo                                                                    []string
	nFIFO                                                                   int
	badLen                                                                  []string // Len or Empty reads out of bounds (the first few)
	nBadLen                                                                 int
	puts, putBatches, gets, getBatches, batchItems, lenReads, nonEmptyReads int64
}

// runStress runs producers, consumers and lock-free readers on one queue
// until the producers are done and the consumers see it empty.
//
// Each producer puts its ids in order, mostly one at a time with Put, else
// with PutBatch (129 items as lfq's overflow batch, 1 to 300, or 1 to 8),
// so its items enter the queue in its order. Each consumer takes with Get
// or GetBatch (128 as findRunnable asks, or 1 to 300, with procs 1 to 8),
// consumes the item to run and then the rest in order, and checks FIFO per
// producer: the queue is FIFO and one consumer's takes are sequential, so
// the items of one producer that it sees must come in that producer's
// order. A consumer stops once every producer is done and Empty reports
// true. Readers call Len and Empty until the consumers stop, and check the
// bounds. At the end nothing may be left in the queue and its Len must be
// 0.
//
// A run that does not end within stressDeadline is a hang: the watchdog
// ends the process, printing every goroutine's stack and how far the run
// got (a lost item makes the consumers wait forever for a queue that says
// it is not empty).
func runStress(cfg stressConfig) *stressResult {
	res := &stressResult{counts: make([]atomic.Int32, cfg.items)}
	count := cfg.consume
	if count == nil {
		count = func(counts []atomic.Int32, id int) { counts[id].Add(1) }
	}
	ids := make([]int, cfg.items)
	for i := range ids {
		ids[i] = i
	}
	q := cfg.newQueue()
	var mu sync.Mutex // guards res's lists and totals from the goroutines
	note := func(list *[]string, n *int, msg string) {
		mu.Lock()
		defer mu.Unlock()
		*n++
		if len(*list) < 5 {
			*list = append(*list, msg)
		}
	}
	var producing sync.WaitGroup
	var producersDone, consumersDone atomic.Bool
	var consuming, reading sync.WaitGroup
	var puts, putBatches, gets, getBatches, batchItems, lenReads, nonEmpty atomic.Int64

	for k := range cfg.producers {
		producing.Go(func() {
			rng := rand.New(rand.NewPCG(cfg.seed, uint64(k)))
			batch := make([]*int, 0, 300)
			var np, nb int64
			for i := k; i < cfg.items; {
				if rng.IntN(32) == 0 {
					runtime.Gosched()
				}
				if rng.IntN(8) != 0 {
					q.Put(&ids[i])
					i += cfg.producers
					np++
					continue
				}
				size := 129
				switch rng.IntN(3) {
				case 1:
					size = 1 + rng.IntN(300)
				case 2:
					size = 1 + rng.IntN(8)
				}
				batch = batch[:0]
				for ; i < cfg.items && len(batch) < size; i += cfg.producers {
					batch = append(batch, &ids[i])
				}
				q.PutBatch(batch)
				nb++
			}
			puts.Add(np)
			putBatches.Add(nb)
		})
	}
	for c := range cfg.consumers {
		consuming.Go(func() {
			rng := rand.New(rand.NewPCG(cfg.seed, uint64(1000+c)))
			last := make([]int, cfg.producers) // per producer, the last seq seen, -1: none
			for k := range last {
				last[k] = -1
			}
			take := func(p *int) {
				count(res.counts, *p)
				k, s := *p%cfg.producers, *p/cfg.producers
				if s <= last[k] {
					note(&res.fifo, &res.nFIFO, fmt.Sprintf("consumer %d took item %d (producer %d, #%d) after #%d of the same producer", c, *p, k, s, last[k]))
				}
				last[k] = max(last[k], s)
			}
			buf := make([]*int, 0, 300)
			var ng, nb, ni int64
			for {
				if rng.IntN(2) == 0 {
					if p := q.Get(); p != nil {
						ng++
						take(p)
						continue
					}
				} else {
					requested := 128
					if rng.IntN(2) == 0 {
						requested = 1 + rng.IntN(300)
					}
					var run *int
					run, buf = q.GetBatch(requested, 1+rng.IntN(8), buf[:0])
					if run != nil {
						nb++
						ni += int64(1 + len(buf))
						take(run)
						for _, p := range buf {
							take(p)
						}
						continue
					}
				}
				if producersDone.Load() && q.Empty() {
					break
				}
				runtime.Gosched()
			}
			gets.Add(ng)
			getBatches.Add(nb)
			batchItems.Add(ni)
		})
	}
	for r := range cfg.readers {
		reading.Go(func() {
			var n, ne int64
			for !consumersDone.Load() {
				l := q.Len()
				e := q.Empty()
				n++
				if l < 0 || l > cfg.items {
					note(&res.badLen, &res.nBadLen, fmt.Sprintf("reader %d: Len() = %d of %d items", r, l, cfg.items))
				}
				if !e {
					ne++
				}
				if n%64 == 0 {
					runtime.Gosched()
				}
			}
			lenReads.Add(n)
			nonEmpty.Add(ne)
		})
	}
	stop := watchdog.Start(fmt.Sprintf("globalq stress (seed %d, %d items)", cfg.seed, cfg.items), stressDeadline(), func() string {
		total := 0
		for i := range res.counts {
			total += int(res.counts[i].Load())
		}
		return fmt.Sprintf("producers done: %v, consumers done: %v, %d of %d items consumed, Len() = %d",
			producersDone.Load(), consumersDone.Load(), total, cfg.items, q.Len())
	})
	defer stop()
	producing.Wait()
	producersDone.Store(true)
	consuming.Wait()
	consumersDone.Store(true)
	reading.Wait()

	for _, p := range globalq.Contents(q.Queue()) {
		res.leftover = append(res.leftover, *p)
	}
	res.finalLen = q.Len()
	res.puts, res.putBatches, res.gets = puts.Load(), putBatches.Load(), gets.Load()
	res.getBatches, res.batchItems = getBatches.Load(), batchItems.Load()
	res.lenReads, res.nonEmptyReads = lenReads.Load(), nonEmpty.Load()
	return res
}

// checkStress reports, as an error, every item not consumed exactly once
// (the first few of each kind and how many), items left in the queue, a
// final Len other than 0, FIFO violations and out-of-bounds Len reads.
func checkStress(res *stressResult) error {
	var lost, dup []int
	nLost, nDup, total := 0, 0, 0
	for id := range res.counts {
		c := int(res.counts[id].Load())
		total += c
		switch {
		case c == 0:
			nLost++
			if len(lost) < 10 {
				lost = append(lost, id)
			}
		case c > 1:
			nDup++
			if len(dup) < 10 {
				dup = append(dup, id)
			}
		}
	}
	var errs []error
	if nLost > 0 {
		errs = append(errs, fmt.Errorf("%d items never consumed, first ids %v", nLost, lost))
	}
	if nDup > 0 {
		errs = append(errs, fmt.Errorf("%d items consumed more than once, first ids %v", nDup, dup))
	}
	if total != len(res.counts) {
		errs = append(errs, fmt.Errorf("%d consumptions of %d items", total, len(res.counts)))
	}
	if len(res.leftover) > 0 {
		errs = append(errs, fmt.Errorf("%d items left in the queue after the consumers saw it empty, first %v",
			len(res.leftover), res.leftover[:min(10, len(res.leftover))]))
	}
	if res.finalLen != 0 || res.finalLen != len(res.leftover) {
		errs = append(errs, fmt.Errorf("final Len() = %d with %d items left", res.finalLen, len(res.leftover)))
	}
	if res.nFIFO > 0 {
		errs = append(errs, fmt.Errorf("%d FIFO violations, first %v", res.nFIFO, res.fifo))
	}
	if res.nBadLen > 0 {
		errs = append(errs, fmt.Errorf("%d Len reads out of bounds, first %v", res.nBadLen, res.badLen))
	}
	return errors.Join(errs...)
}

const (
	stressProducers = 2
	stressConsumers = 3
	stressReaders   = 1
)

// stressDeadline bounds one stress run: generous, since it guards against
// hangs and measures nothing.
func stressDeadline() time.Duration {
	if testing.Short() {
		return time.Minute
	}
	return 5 * time.Minute
}

func stressItems() int {
	if testing.Short() {
		return 50_000
	}
	return 1_000_000
}

func stressDefault(items int, seed uint64, newQueue func() queueUnderTest) stressConfig {
	return stressConfig{items: items, producers: stressProducers, consumers: stressConsumers, readers: stressReaders,
		seed: seed, newQueue: newQueue}
}

func TestStressExactlyOnce(t *testing.T) {
	n := stressItems()
	seed := rand.Uint64()
	res := runStress(stressDefault(n, seed, newRealQueue))
	if err := checkStress(res); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	g := stressProducers + stressConsumers + stressReaders
	t.Logf("stress paths (seed %d): %d producers: %d Puts, %d PutBatches; %d consumers: %d Gets, %d GetBatches (%d items); %d reader: %d Len+Empty reads (%d non-empty)",
		seed, stressProducers, res.puts, res.putBatches, stressConsumers, res.gets, res.getBatches, res.batchItems,
		stressReaders, res.lenReads, res.nonEmptyReads)
	t.Logf("globalq stress: %d items consumed exactly once by %d goroutines", n, g)
}

// TestStressCheckerCatchesBrokenQueue proves the stress checker can fail:
// the same harness and checker, run on a broken consumer and on broken
// queues, must return an error.
func TestStressCheckerCatchesBrokenQueue(t *testing.T) {
	const n = 20_000
	t.Run("consumer counts some items twice", func(t *testing.T) {
		cfg := stressDefault(n, 1, newRealQueue)
		cfg.consume = func(counts []atomic.Int32, id int) {
			counts[id].Add(1)
			if id%1000 == 999 {
				counts[id].Add(1)
			}
		}
		err := checkStress(runStress(cfg))
		if err == nil {
			t.Fatal("checkStress accepted a consumer that counts every 1000th item twice")
		}
		t.Logf("caught: %v", err)
	})
	t.Run("PutBatch drops the last item", func(t *testing.T) {
		err := checkStress(runStress(stressDefault(n, 1, newPutBatchDropsLast)))
		if err == nil {
			t.Fatal("checkStress accepted a queue whose PutBatch drops the last item")
		}
		t.Logf("caught: %v", err)
	})
	t.Run("GetBatch runs the newest item", func(t *testing.T) {
		err := checkStress(runStress(stressDefault(n, 1, newGetBatchRunsNewest)))
		if err == nil {
			t.Fatal("checkStress accepted a queue whose GetBatch runs the newest item of the batch")
		}
		t.Logf("caught: %v", err)
	})
}
