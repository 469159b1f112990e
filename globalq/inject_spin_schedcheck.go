//go:build schedcheck

package globalq

// injectSpins is 0 under the explorer: TryDrain reports an unpublished
// slot at once, and the caller waits for its producer (see inject_spin.go).
const injectSpins = 0
