//go:build schedcheck

package atomicx

// Baton passes a turn from one goroutine to another (see the normal
// build's). Under the explorer it is a Note, so that a Take is a blocking
// point the explorer schedules around.
type Baton struct{ n Note }

// Init makes the baton ready.
func (b *Baton) Init() {}

// Give hands the turn to the goroutine that takes it (now or later).
func (b *Baton) Give() { b.n.Wakeup() }

// Take waits for a Give and consumes it.
func (b *Baton) Take() {
	b.n.Sleep()
	b.n.Clear()
}
