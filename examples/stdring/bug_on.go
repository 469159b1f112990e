//go:build stdringbug

package stdring

// publishEarly is the seeded bug, on (build tag stdringbug): Push publishes
// the tail before it writes the slot, and the explorer test fails.
const publishEarly = true
