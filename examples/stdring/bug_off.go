//go:build !stdringbug

package stdring

// publishEarly is the seeded bug, off: Push writes the slot, then publishes
// the tail.
const publishEarly = false
