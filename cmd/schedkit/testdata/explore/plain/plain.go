// Package plain uses neither sync/atomic nor sync.
package plain

// Two is 2.
const Two = 2
