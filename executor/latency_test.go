package executor

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// summarizeOf records vals into procs histograms (round robin, as if on
// procs Ps) and merges them as Stats does.
func summarizeOf(vals []int64, procs int) LatencyStats {
	hs := make([]histogram, procs)
	for i, v := range vals {
		hs[i%procs].record(v)
	}
	var acc latencyAcc
	for i := range hs {
		acc.add(&hs[i])
	}
	return acc.summarize()
}

// checkLatency is the property LatencyStats' doc states, from the values
// alone (not from bucket or upper): the buckets are non-empty, disjoint, in
// increasing order and at most 1/histSub of their lower bound wide; each
// holds the values in [Lower, Upper], and at every Upper the cumulative
// count is the number of values at most Upper (what a Prometheus
// histogram's le means); they sum to Count; every value has a listed Upper within 1/histSub above it; Sum and
// Max are the values'. A negative value counts as 0.
func checkLatency(ls LatencyStats, vals []int64) error {
	vs := make([]int64, len(vals))
	var sum, mx int64
	for i, v := range vals {
		vs[i] = max(v, 0)
		sum += vs[i]
		mx = max(mx, vs[i])
	}
	if ls.Count != uint64(len(vs)) {
		return fmt.Errorf("Count = %d, want %d", ls.Count, len(vs))
	}
	if ls.Sum != time.Duration(sum) || ls.Max != time.Duration(mx) {
		return fmt.Errorf("Sum, Max = %d, %d, want %d, %d", ls.Sum, ls.Max, sum, mx)
	}
	var cum uint64
	for i, b := range ls.Buckets {
		if b.Count == 0 {
			return fmt.Errorf("bucket %d [%d, %d] is empty", i, b.Lower, b.Upper)
		}
		if b.Lower < 0 || b.Upper < b.Lower || b.Upper-b.Lower > b.Lower>>histSubBits {
			return fmt.Errorf("bucket %d [%d, %d] is wider than 1/%d of its lower bound", i, b.Lower, b.Upper, histSub)
		}
		if i > 0 && b.Lower <= ls.Buckets[i-1].Upper {
			return fmt.Errorf("bucket %d [%d, %d] is not above the one before it (<= %d)", i, b.Lower, b.Upper, ls.Buckets[i-1].Upper)
		}
		cum += b.Count
		var in, le uint64
		for _, v := range vs {
			if time.Duration(v) <= b.Upper {
				le++
				if time.Duration(v) >= b.Lower {
					in++
				}
			}
		}
		if b.Count != in || cum != le {
			return fmt.Errorf("bucket [%d, %d] holds %d (%d up to it), want %d (%d)", b.Lower, b.Upper, b.Count, cum, in, le)
		}
	}
	if cum != ls.Count {
		return fmt.Errorf("buckets hold %d, want Count %d", cum, ls.Count)
	}
	for _, v := range vs {
		if !slices.ContainsFunc(ls.Buckets, func(b LatencyBucket) bool {
			return int64(b.Upper) >= v && int64(b.Upper)-v <= v>>histSubBits
		}) {
			return fmt.Errorf("no bucket bound within 1/%d above %d", histSub, v)
		}
	}
	return nil
}

// knownLatencies and their buckets, worked out by hand: below 8 every value
// has its own bucket; above, four per power of two (1000 and 1023 share
// [896, 1023]; 1024 is [1024, 1279]; 1500 is [1280, 1535]; 1e6 is
// [917504, 1048575]; 2^40+5 is [2^40, 2^40+2^38-1]).
var knownLatencies = []int64{-5, 0, 1, 3, 3, 6, 1000, 1023, 1024, 1500, 1_000_000, 1<<40 + 5}

var knownBuckets = []LatencyBucket{
	{0, 0, 2}, {1, 1, 1}, {3, 3, 2}, {6, 6, 1}, {896, 1023, 2}, {1024, 1279, 1}, {1280, 1535, 1},
	{917504, 1048575, 1}, {1 << 40, 1<<40 + 1<<38 - 1, 1},
}

func TestLatencyBucketsKnownValues(t *testing.T) {
	for _, procs := range []int{1, 3} {
		ls := summarizeOf(knownLatencies, procs)
		assert.Equal(t, knownBuckets, ls.Buckets, "procs %d", procs)
		assert.Equal(t, uint64(12), ls.Count)
		assert.Equal(t, time.Duration(1+3+3+6+1000+1023+1024+1500+1_000_000+1<<40+5), ls.Sum, "a negative value adds 0")
		assert.Equal(t, time.Duration(1<<40+5), ls.Max)
		// ranks 6 and 11 of 12: the buckets <= 6 and <= 1048575.
		assert.Equal(t, time.Duration(6), ls.P50)
		assert.Equal(t, time.Duration(1048575), ls.P99)
		require.NoError(t, checkLatency(ls, knownLatencies), "procs %d", procs)
	}
	empty := summarizeOf(nil, 2)
	assert.Equal(t, LatencyStats{}, empty, "nothing recorded: no buckets")
	require.NoError(t, checkLatency(empty, nil))
}

// A summarize that drops a bucket, merges two, names a bucket by its lower
// bound, loses the sum, lists an empty one or lists them out of order must
// fail checkLatency.
func TestLatencyCheckCatchesBrokenSummarize(t *testing.T) {
	good := summarizeOf(knownLatencies, 2)
	broken := map[string]func(ls *LatencyStats){
		"drops a middle bucket": func(ls *LatencyStats) {
			ls.Buckets = slices.Delete(ls.Buckets, 4, 5)
		},
		"drops the last bucket": func(ls *LatencyStats) { ls.Buckets = ls.Buckets[:len(ls.Buckets)-1] },
		"merges two buckets into the upper one": func(ls *LatencyStats) {
			ls.Buckets[6].Count += ls.Buckets[5].Count
			ls.Buckets = slices.Delete(ls.Buckets, 5, 6)
		},
		"lower bound as Upper": func(ls *LatencyStats) { ls.Buckets[4].Upper = 896 },
		"upper bound as Lower": func(ls *LatencyStats) { ls.Buckets[4].Lower = 1023 },
		"one bound too wide":   func(ls *LatencyStats) { ls.Buckets[5].Upper, ls.Buckets[5].Lower = 1535, 1024 },
		"no sum":               func(ls *LatencyStats) { ls.Sum = 0 },
		"reversed": func(ls *LatencyStats) {
			slices.Reverse(ls.Buckets)
		},
		"an empty bucket listed": func(ls *LatencyStats) {
			ls.Buckets = slices.Insert(ls.Buckets, 4, LatencyBucket{Lower: 96, Upper: 111})
		},
	}
	for name, breakIt := range broken {
		ls := good
		ls.Buckets = slices.Clone(good.Buckets)
		breakIt(&ls)
		assert.Error(t, checkLatency(ls, knownLatencies), name)
	}
}

// The bucket bounds for any values, on any number of Ps.
func TestLatencyBucketsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vals := rapid.SliceOf(rapid.OneOf(
			rapid.Int64Range(-3, 20),
			rapid.Int64Range(0, 1<<20),
			rapid.Int64Range(0, 1<<50),
		)).Draw(t, "vals")
		procs := rapid.IntRange(1, 4).Draw(t, "procs")
		if err := checkLatency(summarizeOf(vals, procs), vals); err != nil {
			t.Fatal(err)
		}
	})
}

// bucket, lower and upper agree: lower(b) and upper(b) are in b and
// upper(b)+1 starts b+1, up to the largest int64.
func TestLatencyBucketBounds(t *testing.T) {
	for b := 0; upper(b) < math.MaxInt64; b++ {
		require.Equal(t, b, bucket(lower(b)), "bucket %d", b)
		require.Equal(t, b, bucket(upper(b)), "bucket %d", b)
		require.Equal(t, b+1, bucket(upper(b)+1), "bucket %d", b)
	}
	assert.Equal(t, uint64(math.MaxInt64), upper(bucket(math.MaxInt64)))
}

// Stats on a real executor: after Close the latency of every sampled
// outside task (one in LatencySample, from the first) is in the buckets, and Sum lies between the buckets' lower and upper bounds.
func TestStatsLatencyBuckets(t *testing.T) {
	e, err := New(Config{Procs: 2})
	require.NoError(t, err)
	for range 200 {
		require.NoError(t, e.Go(func(Task) {}))
	}
	require.NoError(t, e.Close())
	ls := e.Stats().Latency
	require.Equal(t, uint64(200/LatencySample), ls.Count)
	var n uint64
	var lo, hi time.Duration
	for i, b := range ls.Buckets {
		require.NotZero(t, b.Count)
		if i > 0 {
			require.Greater(t, b.Upper, ls.Buckets[i-1].Upper)
		}
		n += b.Count
		lo += b.Lower * time.Duration(b.Count)
		hi += b.Upper * time.Duration(b.Count)
	}
	assert.Equal(t, ls.Count, n, "the buckets hold every sample")
	assert.GreaterOrEqual(t, ls.Sum, lo)
	assert.LessOrEqual(t, ls.Sum, hi)
	last := len(ls.Buckets) - 1
	assert.LessOrEqual(t, ls.Max, ls.Buckets[last].Upper, "Max is in the last bucket")
	if last > 0 {
		assert.Greater(t, ls.Max, ls.Buckets[last-1].Upper, "Max is in the last bucket")
	}
}

// The sampling of outside tasks' latency: n tasks submitted one at a time,
// as batches of every size from 1 to 2*LatencySample+1 (so every phase of
// the numbering meets every batch length), and both at once from several
// goroutines, record exactly ceil(n/LatencySample) latencies. A sampler
// that skipped a batch's first eligible record, or stamped by a per-batch
// count, records another number.
func TestLatencySampling(t *testing.T) {
	e, err := New(Config{Procs: 2})
	require.NoError(t, err)
	f := func(Task) {}
	n := 0
	for k := 1; k <= 2*LatencySample+1; k++ {
		for range 3 {
			fs := make([]func(Task), k)
			for i := range fs {
				fs[i] = f
			}
			require.NoError(t, e.GoBatch(fs))
			n += k
			require.NoError(t, e.Go(f))
			n++
		}
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 37 {
				assert.NoError(t, e.Go(f))
			}
			assert.NoError(t, e.GoBatch([]func(Task){f, f, f}))
		}()
	}
	wg.Wait()
	n += 4 * 40
	require.NoError(t, e.Close())
	assert.Equal(t, uint64((n+LatencySample-1)/LatencySample), e.Stats().Latency.Count, "%d outside tasks", n)
}
