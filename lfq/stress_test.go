package lfq_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/schedkit/schedkit/internal/exactlyonce"
	"github.com/schedkit/schedkit/internal/linearize"
	"github.com/schedkit/schedkit/internal/watchdog"
	"github.com/schedkit/schedkit/lfq"
)

// stressConfig describes one run of the exactly-once stress harness.
type stressConfig struct {
	items   int                        // ids 0..items-1, each put once by the owner
	thieves int                        // goroutines that own a ring each and steal
	seed    uint64                     // for the goroutines' choices
	newRing func() ringUnderTest       // the rings under test
	consume func([]atomic.Int32, *int) // counts one consumption; nil: counts[*p]++
}

// stressResult is what the harness observed. counts[id] is how many times
// item id was consumed.
type stressResult struct {
	counts    []atomic.Int32
	overflows int   // overflow batches the owner got back from Put
	puts      int   // Put calls
	batches   int   // PutBatch calls
	steals    int64 // successful StealHalf calls, all thieves
	fromThief int64 // those of them whose victim was another thief
	// consumedBy[g] is how many consumptions goroutine g made (0: the
	// owner, its global-queue stand-in included; k: thief k).
	consumedBy []int64
}

// runStress runs one owner and cfg.thieves thieves until every item has been
// consumed or lost, and returns the counts.
//
// The owner puts ids 0..items-1 in order with Put and PutBatch, interleaved
// with Get, an occasional Drain, and re-puts from its stand-in for the global
// queue: an overflow batch from Put, or the suffix PutBatch kept, either goes
// to that queue (to be re-put later) or is consumed by "the global queue" at
// once. At the end it empties the queue into the ring, then drains the ring.
//
// Each thief owns a ring and only steals into it: from the owner's ring or
// from another thief's ring. It consumes the item StealHalf returns and Gets
// from its own ring. A thief stops once the owner is done and both the
// owner's ring and its own are empty; only its owner fills a ring, so any
// item still in another thief's ring is that thief's to consume.
func runStress(cfg stressConfig) *stressResult {
	res := &stressResult{counts: make([]atomic.Int32, cfg.items), consumedBy: make([]int64, cfg.thieves+1)}
	count := cfg.consume
	if count == nil {
		count = func(counts []atomic.Int32, p *int) { counts[*p].Add(1) }
	}
	// consume counts p for goroutine g; only g writes res.consumedBy[g].
	consume := func(g int, p *int) {
		count(res.counts, p)
		res.consumedBy[g]++
	}
	ids := make([]int, cfg.items)
	for i := range ids {
		ids[i] = i
	}
	owner := cfg.newRing()
	rings := []ringUnderTest{owner}
	for range cfg.thieves {
		rings = append(rings, cfg.newRing())
	}
	var ownerDone atomic.Bool
	var steals, fromThief atomic.Int64
	var progress atomic.Int64 // items the owner has handed to the ring so far
	var wg sync.WaitGroup

	// A lost wakeup or a livelock here would otherwise surface as the test
	// binary's 10-minute timeout; the watchdog names the run and prints
	// every goroutine's stack and how far the run got.
	stop := watchdog.Start(fmt.Sprintf("lfq stress seed %d (%d items, %d thieves)", cfg.seed, cfg.items, cfg.thieves),
		linearize.StressDeadline(), func() string {
			consumed := 0
			for i := range res.counts {
				consumed += int(res.counts[i].Load())
			}
			return fmt.Sprintf("owner put %d of %d items, done %v; %d consumptions counted; owner's ring holds %d",
				progress.Load(), cfg.items, ownerDone.Load(), consumed, owner.Len())
		})
	defer stop()

	for k := 1; k <= cfg.thieves; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(cfg.seed, uint64(k)))
			own := rings[k]
			var stolen, stolenFromThief int64
			for {
				// Mostly run local work first, as a P does; sometimes steal
				// although there is some, while the stolen half fits.
				if own.Len() > lfq.Size/2 || rng.IntN(4) != 0 {
					if p := own.Get(); p != nil {
						consume(k, p)
						continue
					}
				}
				victim := 0
				if cfg.thieves > 1 && rng.IntN(3) == 0 {
					victim = 1 + rng.IntN(cfg.thieves)
				}
				if victim != k && own.Len() <= lfq.Size/2 {
					if p := rings[victim].StealHalf(own); p != nil {
						stolen++
						if victim != 0 {
							stolenFromThief++
						}
						consume(k, p)
						continue
					}
				}
				if ownerDone.Load() && owner.Len() == 0 && own.Len() == 0 {
					break
				}
				runtime.Gosched()
			}
			steals.Add(stolen)
			fromThief.Add(stolenFromThief)
		}()
	}

	// The owner, on this goroutine.
	rng := rand.New(rand.NewPCG(cfg.seed, 0))
	var global []*int // stand-in for the global run queue
	toGlobal := func(ps []*int) {
		if rng.IntN(2) == 0 {
			global = append(global, ps...)
			return
		}
		for _, p := range ps {
			consume(0, p) // the global queue's consumer ran it
		}
	}
	spill := make([]*int, 0, lfq.OverflowLen)
	batch := make([]*int, 0, 300)
	next := 0
	put := func() {
		spill = owner.Put(&ids[next], spill[:0])
		next++
		res.puts++
		if len(spill) > 0 {
			res.overflows++
			toGlobal(spill)
		}
	}
	for next < cfg.items {
		progress.Store(int64(next))
		if rng.IntN(64) == 0 {
			runtime.Gosched() // on few cores, let the thieves run mid-stream
		}
		switch op := rng.IntN(1024); {
		case op < 640:
			put()
		case op < 648: // a burst, to reach a full ring
			for range min(300, cfg.items-next) {
				put()
			}
		case op < 928:
			if p := owner.Get(); p != nil {
				consume(0, p)
			}
		case op < 960: // a batch of new items
			batch = batch[:0]
			for range min(1+rng.IntN(300), cfg.items-next) {
				batch = append(batch, &ids[next])
				next++
			}
			n := owner.PutBatch(batch)
			res.batches++
			toGlobal(batch[n:])
		case op < 1022: // a batch back from the global queue
			if len(global) > 0 {
				n := owner.PutBatch(global[:min(len(global), 1+rng.IntN(200))])
				res.batches++
				global = global[n:]
			}
		default:
			for _, p := range owner.Drain(batch[:0]) {
				consume(0, p)
			}
		}
	}
	for len(global) > 0 {
		n := owner.PutBatch(global)
		res.batches++
		global = global[n:]
		if p := owner.Get(); p != nil {
			consume(0, p)
		}
	}
	for _, p := range owner.Drain(nil) {
		consume(0, p)
	}
	ownerDone.Store(true)
	wg.Wait()
	res.steals = steals.Load()
	res.fromThief = fromThief.Load()
	return res
}

const stressThieves = 3

func TestStressExactlyOnce(t *testing.T) {
	n := linearize.StressItems()
	res := runStress(stressConfig{items: n, thieves: stressThieves, seed: rand.Uint64(), newRing: newRealRingUT})
	if err := exactlyonce.Check(res.counts); err != nil {
		t.Fatal(err)
	}
	t.Logf("stress paths: %d Puts, %d overflow batches, %d PutBatches, %d steals (%d from a thief); consumed by owner and thieves: %v",
		res.puts, res.overflows, res.batches, res.steals, res.fromThief, res.consumedBy)
	t.Logf("lfq stress: %d items consumed exactly once by %d goroutines", n, stressThieves+1)
}

// TestStressCheckerCatchesMutants proves the stress checker can fail: the same
// harness and checker, run on a broken consumer and on a broken ring, must
// return an error.
func TestStressCheckerCatchesMutants(t *testing.T) {
	const n = 20_000
	t.Run("consumer counts some items twice", func(t *testing.T) {
		res := runStress(stressConfig{
			items: n, thieves: stressThieves, seed: 1, newRing: newRealRingUT,
			consume: func(counts []atomic.Int32, p *int) {
				counts[*p].Add(1)
				if *p%1000 == 999 {
					counts[*p].Add(1)
				}
			},
		})
		err := exactlyonce.Check(res.counts)
		if err == nil {
			t.Fatal("checkExactlyOnce accepted a consumer that counts every 1000th item twice")
		}
		t.Logf("caught: %v", err)
	})
	t.Run("overflow batch drops the new item", func(t *testing.T) {
		// Thieves may keep the owner's ring from filling; without an
		// overflow the mutant is harmless, so retry until one happened.
		for attempt := range 20 {
			res := runStress(stressConfig{
				items: n, thieves: stressThieves, seed: uint64(attempt), newRing: newOverflowDropsNewRing,
			})
			err := exactlyonce.Check(res.counts)
			if res.overflows == 0 {
				continue
			}
			if err == nil {
				t.Fatalf("checkExactlyOnce accepted a ring that lost the new item of %d overflow batches", res.overflows)
			}
			t.Logf("caught after %d overflow batches: %v", res.overflows, err)
			return
		}
		t.Fatal("no run of the harness overflowed the owner's ring")
	})
}
