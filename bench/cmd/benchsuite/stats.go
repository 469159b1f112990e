package main

import (
	"math"
	"slices"
)

// spread is the median and range of one figure over the rounds.
type spread struct {
	Median, Min, Max float64
	// OK is false when there was no value to summarise (every round
	// failed, or the ratio had no base).
	OK bool
}

// summarise is the median, min and max of vs; the median of an even
// count is the mean of the middle two.
func summarise(vs []float64) spread {
	if len(vs) == 0 {
		return spread{}
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return spread{Median: m, Min: s[0], Max: s[len(s)-1], OK: true}
}

// ratio is how many times better schedkit's figure base is than a peer's
// figure peer, measured in the same round: peer/base for a lower-is-better
// metric (ns/task: above 1, schedkit is faster), base/peer for a
// higher-is-better one. ok is false where the quotient means nothing (a
// zero or non-finite figure).
func ratio(base, peer float64, higherIsBetter bool) (r float64, ok bool) {
	num, den := peer, base
	if higherIsBetter {
		num, den = base, peer
	}
	if den == 0 || !finite(num) || !finite(den) {
		return 0, false
	}
	return num / den, true
}

// ratioSpread is the median and range of the per-round ratios of peer to
// base. A round counts only where both runs succeeded: the ratio of
// medians would pair a fast round of one with a slow round of the other,
// which interleaving is there to avoid.
func ratioSpread(base, peer []sample, higherIsBetter bool) spread {
	var rs []float64
	for i := range min(len(base), len(peer)) {
		if !base[i].ok() || !peer[i].ok() {
			continue
		}
		if r, ok := ratio(base[i].Value, peer[i].Value, higherIsBetter); ok {
			rs = append(rs, r)
		}
	}
	return summarise(rs)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func nan() float64 { return math.NaN() }
