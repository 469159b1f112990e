package prom

import (
	"context"
	"fmt"
	"maps"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/schedkit/schedkit/executor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeStats gives every counter of every P a distinct value, so a value
// sent under the wrong name or label cannot match by chance.
func fakeStats(procs int) executor.Stats {
	s := executor.Stats{Procs: make([]executor.ProcStats, procs), GlobalLen: 7, Ms: 5, Spinning: 1, IdleProcs: 2,
		Dropped: 3, Latency: fakeLatency}
	for p := range s.Procs {
		ps := &s.Procs[p]
		for i, v := range []*uint64{&ps.Tasks, &ps.RunnextHits, &ps.RingGets, &ps.GlobalGets, &ps.GlobalBatches,
			&ps.GlobalBatchTasks, &ps.Steals, &ps.Stolen, &ps.Overflows, &ps.Handoffs, &ps.Retakes, &ps.Preempts, &ps.Resumes,
			&ps.Yields, &ps.Helped, &ps.Parks, &ps.Unparks, &ps.SpinStarts, &ps.SpinStops, &ps.Panics} {
			*v = uint64(1000*(p+1) + i)
		}
		ps.QueueLen = 10 + p
	}
	for _, ps := range s.Procs {
		s.Total = sum(s.Total, ps)
	}
	return s
}

// fakeLatency has the executor's real bucket bounds ([896, 1023],
// [1280, 1535], [7*2^17, 2^20-1], [7*2^27, 2^30-1] nanoseconds), none next
// to another, and counts that differ from their cumulative sums.
var fakeLatency = executor.LatencyStats{Count: 42, P50: 1535, P99: 1048575, Max: time.Second, Sum: 2500 * time.Millisecond,
	Buckets: []executor.LatencyBucket{{Lower: 896, Upper: 1023, Count: 10}, {Lower: 1280, Upper: 1535, Count: 20},
		{Lower: 7 << 17, Upper: 1<<20 - 1, Count: 11}, {Lower: 7 << 27, Upper: 1<<30 - 1, Count: 1}}}

// sum adds two ProcStats field by field through the counters table plus
// QueueLen (the executor's own add is not exported).
func sum(a, b executor.ProcStats) executor.ProcStats {
	return executor.ProcStats{
		Tasks: a.Tasks + b.Tasks, RunnextHits: a.RunnextHits + b.RunnextHits, RingGets: a.RingGets + b.RingGets,
		GlobalGets: a.GlobalGets + b.GlobalGets, GlobalBatches: a.GlobalBatches + b.GlobalBatches,
		GlobalBatchTasks: a.GlobalBatchTasks + b.GlobalBatchTasks, Steals: a.Steals + b.Steals,
		Stolen: a.Stolen + b.Stolen, Overflows: a.Overflows + b.Overflows, Handoffs: a.Handoffs + b.Handoffs,
		Retakes: a.Retakes + b.Retakes, Preempts: a.Preempts + b.Preempts, Resumes: a.Resumes + b.Resumes, Yields: a.Yields + b.Yields,
		Helped: a.Helped + b.Helped, Parks: a.Parks + b.Parks, Unparks: a.Unparks + b.Unparks,
		SpinStarts: a.SpinStarts + b.SpinStarts, SpinStops: a.SpinStops + b.SpinStops, Panics: a.Panics + b.Panics,
		QueueLen: a.QueueLen + b.QueueLen,
	}
}

// scrape gathers c through a fresh registry (which also checks that the
// descriptions and label sets are consistent).
func scrape(c prometheus.Collector) (map[string]*dto.MetricFamily, error) {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		return nil, err
	}
	fams, err := reg.Gather()
	if err != nil {
		return nil, err
	}
	m := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		m[f.GetName()] = f
	}
	return m, nil
}

func value(m *dto.Metric) float64 {
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	return m.Gauge.GetValue()
}

// checkScrape is the property: every per-P series equals that P's counter,
// one series per P, and every total equals Stats.Total's.
func checkScrape(c prometheus.Collector, s executor.Stats) error {
	fams, err := scrape(c)
	if err != nil {
		return err
	}
	for _, k := range counters {
		f := fams["schedkit_p_"+k.name+"_total"]
		if f == nil || len(f.Metric) != len(s.Procs) {
			return fmt.Errorf("%s: want %d series, one per P", k.name, len(s.Procs))
		}
		for _, m := range f.Metric {
			var p int
			if _, err := fmt.Sscan(m.Label[0].GetValue(), &p); err != nil || p < 0 || p >= len(s.Procs) {
				return fmt.Errorf("%s: bad p label %q", k.name, m.Label[0].GetValue())
			}
			if got, want := value(m), float64(k.get(&s.Procs[p])); got != want {
				return fmt.Errorf("%s{p=%d} = %v, want %v", k.name, p, got, want)
			}
		}
		t := fams["schedkit_"+k.name+"_total"]
		if t == nil || value(t.Metric[0]) != float64(k.get(&s.Total)) {
			return fmt.Errorf("%s total: want %v", k.name, k.get(&s.Total))
		}
	}
	return checkLatency(fams, s.Latency)
}

// checkLatency is the histogram's property: for each of Stats' buckets, a
// bound at its Upper in seconds holding the count of every bucket up to it,
// and one at Lower-1 holding the count below it (unless Lower is 0); no
// other bounds; the count and sum (in seconds) are Stats'.
func checkLatency(fams map[string]*dto.MetricFamily, l executor.LatencyStats) error {
	f := fams["schedkit_latency_seconds"]
	if f == nil || f.GetType() != dto.MetricType_HISTOGRAM || len(f.Metric) != 1 {
		return fmt.Errorf("schedkit_latency_seconds: want one histogram")
	}
	h := f.Metric[0].Histogram
	if h.GetSampleCount() != l.Count || h.GetSampleSum() != l.Sum.Seconds() {
		return fmt.Errorf("latency count, sum = %d, %v, want %d, %v", h.GetSampleCount(), h.GetSampleSum(), l.Count, l.Sum.Seconds())
	}
	got := map[float64]uint64{}
	for _, b := range h.Bucket {
		got[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	want := map[float64]uint64{}
	var cum uint64
	for _, b := range l.Buckets {
		if b.Lower > 0 {
			want[(b.Lower - time.Nanosecond).Seconds()] = cum
		}
		cum += b.Count
		want[b.Upper.Seconds()] = cum
	}
	if len(got) != len(h.Bucket) || !maps.Equal(got, want) {
		return fmt.Errorf("latency buckets (le: cumulative count) %v, want %v", got, want)
	}
	return nil
}

func TestScrapeMatchesStats(t *testing.T) {
	s := fakeStats(3)
	c := newCollector(func() executor.Stats { return s }, counters)
	require.NoError(t, checkScrape(c, s))

	const want = `
# HELP schedkit_global_queue_length Tasks in the global queue when scraped.
# TYPE schedkit_global_queue_length gauge
schedkit_global_queue_length 7
# HELP schedkit_p_queue_length Tasks in a P's local queue (runnext and ring) when scraped.
# TYPE schedkit_p_queue_length gauge
schedkit_p_queue_length{p="0"} 10
schedkit_p_queue_length{p="1"} 11
schedkit_p_queue_length{p="2"} 12
# HELP schedkit_local_queue_length Tasks in every P's local queue when scraped.
# TYPE schedkit_local_queue_length gauge
schedkit_local_queue_length 33
# HELP schedkit_latency_seconds Submit-to-start latency of tasks submitted from outside (bounds within 25% above their latencies).
# TYPE schedkit_latency_seconds histogram
schedkit_latency_seconds_bucket{le="8.95e-07"} 0
schedkit_latency_seconds_bucket{le="1.023e-06"} 10
schedkit_latency_seconds_bucket{le="1.279e-06"} 10
schedkit_latency_seconds_bucket{le="1.535e-06"} 30
schedkit_latency_seconds_bucket{le="0.000917503"} 30
schedkit_latency_seconds_bucket{le="0.001048575"} 41
schedkit_latency_seconds_bucket{le="0.939524095"} 41
schedkit_latency_seconds_bucket{le="1.073741823"} 42
schedkit_latency_seconds_bucket{le="+Inf"} 42
schedkit_latency_seconds_sum 2.5
schedkit_latency_seconds_count 42
# HELP schedkit_latency_max_seconds Largest submit-to-start latency recorded.
# TYPE schedkit_latency_max_seconds gauge
schedkit_latency_max_seconds 1
# HELP schedkit_dropped_tasks_total Tasks dropped at a Shutdown deadline.
# TYPE schedkit_dropped_tasks_total counter
schedkit_dropped_tasks_total 3
# HELP schedkit_procs Ps of the executor.
# TYPE schedkit_procs gauge
schedkit_procs 3
# HELP schedkit_workers Ms (worker goroutines) made so far.
# TYPE schedkit_workers gauge
schedkit_workers 5
# HELP schedkit_spinning_workers Ms spinning when scraped.
# TYPE schedkit_spinning_workers gauge
schedkit_spinning_workers 1
# HELP schedkit_idle_procs Ps idle when scraped.
# TYPE schedkit_idle_procs gauge
schedkit_idle_procs 2
`
	assert.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want),
		"schedkit_global_queue_length", "schedkit_p_queue_length", "schedkit_local_queue_length",
		"schedkit_latency_seconds", "schedkit_latency_max_seconds",
		"schedkit_dropped_tasks_total", "schedkit_procs", "schedkit_workers", "schedkit_spinning_workers", "schedkit_idle_procs"))
	assert.Equal(t, len(counters)*(3+1)+3+9, testutil.CollectAndCount(c),
		"each counter per P (3) and in total, the queue length per P (3), nine more (the histogram is one)")
}

// dropP is a broken collector: it loses one P's series.
type dropP struct{ *Collector }

func (d dropP) Collect(ch chan<- prometheus.Metric) {
	in := make(chan prometheus.Metric)
	go func() { d.Collector.Collect(in); close(in) }()
	for m := range in {
		var pb dto.Metric
		_ = m.Write(&pb)
		if len(pb.Label) == 1 && pb.Label[0].GetName() == "p" && pb.Label[0].GetValue() == "2" {
			continue
		}
		ch <- m
	}
}

// The check above must fail on a collector that drops a P, one that sends
// a counter under another's name, and one that reads a stale snapshot for
// its totals.
func TestScrapeCheckCatchesBrokenCollector(t *testing.T) {
	s := fakeStats(3)
	good := newCollector(func() executor.Stats { return s }, counters)
	assert.Error(t, checkScrape(dropP{good}, s), "a lost P")

	swapped := append([]counter(nil), counters...)
	swapped[1].get, swapped[2].get = counters[2].get, counters[1].get
	assert.Error(t, checkScrape(newCollector(func() executor.Stats { return s }, swapped), s), "swapped counters")

	stale := fakeStats(3)
	stale.Total.Tasks++
	assert.Error(t, checkScrape(newCollector(func() executor.Stats { return s }, counters), stale), "totals of another snapshot")

	// Broken latency histograms: each must fail the check.
	broken := map[string]func(executor.LatencyStats) (uint64, float64, map[float64]uint64){
		"per-bucket counts": func(l executor.LatencyStats) (uint64, float64, map[float64]uint64) {
			n, sum, m := latencyHistogram(l)
			for _, b := range l.Buckets {
				m[b.Upper.Seconds()] = b.Count
			}
			return n, sum, m
		},
		"bounds in nanoseconds": func(l executor.LatencyStats) (uint64, float64, map[float64]uint64) {
			n, sum, m := latencyHistogram(l)
			ns := map[float64]uint64{}
			for le, c := range m {
				ns[le*1e9] = c
			}
			return n, sum, ns
		},
		"a lost bucket": func(l executor.LatencyStats) (uint64, float64, map[float64]uint64) {
			n, sum, m := latencyHistogram(l)
			delete(m, l.Buckets[1].Upper.Seconds())
			return n, sum, m
		},
		"no bound below a bucket": upperBoundsOnly,
		"sum in nanoseconds": func(l executor.LatencyStats) (uint64, float64, map[float64]uint64) {
			n, _, m := latencyHistogram(l)
			return n, float64(l.Sum), m
		},
	}
	for name, h := range broken {
		c := newCollector(func() executor.Stats { return s }, counters)
		c.histogram = h
		assert.Error(t, checkScrape(c, s), name)
	}
}

// upperBoundsOnly is a broken histogram: the listed buckets' upper bounds
// alone, so histogram_quantile interpolates across empty buckets.
func upperBoundsOnly(l executor.LatencyStats) (uint64, float64, map[float64]uint64) {
	m := map[float64]uint64{}
	var cum uint64
	for _, b := range l.Buckets {
		cum += b.Count
		m[b.Upper.Seconds()] = cum
	}
	return l.Count, l.Sum.Seconds(), m
}

// histogramQuantile is PromQL's histogram_quantile on one scraped
// histogram: the bucket where rank q*count falls, interpolated linearly
// from the bound before it.
func histogramQuantile(q float64, h *dto.Histogram) float64 {
	rank := q * float64(h.GetSampleCount())
	var prevLe float64
	var prevCum uint64
	for _, b := range h.Bucket {
		if float64(b.GetCumulativeCount()) >= rank {
			in := float64(b.GetCumulativeCount() - prevCum)
			return prevLe + (b.GetUpperBound()-prevLe)*(rank-float64(prevCum))/in
		}
		prevLe, prevCum = b.GetUpperBound(), b.GetCumulativeCount()
	}
	return prevLe
}

// checkQuantiles is the package doc's claim: histogram_quantile of the
// scraped histogram lies in the Stats bucket of the sample of that rank,
// read as PromQL reads it: (Lower-1ns, Upper], a continuous interval,
// give or take float rounding (a billionth of Upper, far below 1ns).
func checkQuantiles(c prometheus.Collector, l executor.LatencyStats) error {
	fams, err := scrape(c)
	if err != nil {
		return err
	}
	h := fams["schedkit_latency_seconds"].Metric[0].Histogram
	for q := 0.01; q < 1; q += 0.01 {
		rank := uint64(math.Ceil(q * float64(l.Count)))
		var cum uint64
		for _, b := range l.Buckets {
			if cum += b.Count; cum >= rank {
				below, eps := (b.Lower - time.Nanosecond).Seconds(), b.Upper.Seconds()*1e-9
				if got := histogramQuantile(q, h); got < below-eps || got > b.Upper.Seconds()+eps {
					return fmt.Errorf("histogram_quantile(%.2f) = %v, outside [%v, %v]", q, got, below, b.Upper.Seconds())
				}
				break
			}
		}
	}
	return nil
}

func TestLatencyQuantilesWithinBucket(t *testing.T) {
	s := fakeStats(1)
	c := newCollector(func() executor.Stats { return s }, counters)
	require.NoError(t, checkQuantiles(c, s.Latency))
	c.histogram = upperBoundsOnly
	assert.Error(t, checkQuantiles(c, s.Latency), "interpolated across the empty buckets below")
}

// No latency recorded yet: the histogram is empty, with only +Inf.
func TestLatencyHistogram(t *testing.T) {
	s := fakeStats(1)
	s.Latency = executor.LatencyStats{}
	c := newCollector(func() executor.Stats { return s }, counters)
	require.NoError(t, checkScrape(c, s))
	const want = `
# HELP schedkit_latency_seconds Submit-to-start latency of tasks submitted from outside (bounds within 25% above their latencies).
# TYPE schedkit_latency_seconds histogram
schedkit_latency_seconds_bucket{le="+Inf"} 0
schedkit_latency_seconds_sum 0
schedkit_latency_seconds_count 0
`
	assert.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want), "schedkit_latency_seconds"))
}

// A known workload: 100 tasks submitted from outside, each spawning two
// local children, on 2 Ps. After Close every task is counted once.
func TestKnownWorkload(t *testing.T) {
	e, err := executor.New(executor.Config{Procs: 2})
	require.NoError(t, err)
	c := New(e)
	for range 100 {
		require.NoError(t, e.Go(func(t executor.Task) {
			t.Go(func(executor.Task) {})
			g, _ := t.NewGroup(context.Background())
			g.Go(func(executor.Task) error { return nil })
			_ = g.Wait()
		}))
	}
	require.NoError(t, e.Close())
	s := e.Stats()
	require.NoError(t, checkScrape(c, s))
	require.NoError(t, checkQuantiles(c, s.Latency))
	const want = `
# HELP schedkit_tasks_total Tasks started. All Ps.
# TYPE schedkit_tasks_total counter
schedkit_tasks_total 300
# HELP schedkit_procs Ps of the executor.
# TYPE schedkit_procs gauge
schedkit_procs 2
# HELP schedkit_global_queue_length Tasks in the global queue when scraped.
# TYPE schedkit_global_queue_length gauge
schedkit_global_queue_length 0
# HELP schedkit_local_queue_length Tasks in every P's local queue when scraped.
# TYPE schedkit_local_queue_length gauge
schedkit_local_queue_length 0
`
	assert.Equal(t, uint64((100+executor.LatencySample-1)/executor.LatencySample), s.Latency.Count,
		"one latency per LatencySample outside tasks")
	assert.NotEmpty(t, s.Latency.Buckets)
	assert.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want), "schedkit_tasks_total",
		"schedkit_procs", "schedkit_global_queue_length", "schedkit_local_queue_length"))
	assert.Equal(t, 2, testutil.CollectAndCount(c, "schedkit_p_tasks_total"), "one series per P")
}

func TestLint(t *testing.T) {
	s := fakeStats(2)
	problems, err := testutil.CollectAndLint(newCollector(func() executor.Stats { return s }, counters))
	require.NoError(t, err)
	assert.Empty(t, problems)
}

func TestNewNilPanics(t *testing.T) {
	assert.PanicsWithValue(t, "prom.New: nil executor", func() { New(nil) })
}
