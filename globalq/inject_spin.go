//go:build !schedcheck

package globalq

// injectSpins is how many more looks TryDrain gives a slot whose producer
// holds its ticket and has not published it yet: it is a few instructions
// from the store, and a drain that came back empty would send the M round
// its whole search. Under the explorer it is 0 (inject_spin_schedcheck.go):
// each look would be a scheduling point.
const injectSpins = 64
