//go:build !schedcheck

package atomicx

// Baton passes a turn from one goroutine to another: Take blocks until a
// Give, and each Give is taken by one Take. At most one Give may be
// outstanding (not yet taken): a second one blocks until the first is
// taken. Where a Note costs a lock on each of Wakeup, Sleep and Clear, a
// Baton is one channel operation on each side, for a handoff that is
// always taken (an executor's parked task, its spare workers). Call Init
// before first use. It mirrors the runtime's notewakeup/notesleep pair as
// park_m and ready use it, with the clear folded into the take.
type Baton struct{ ch chan struct{} }

// Init makes the baton ready; it must be called once, before any Give or
// Take.
func (b *Baton) Init() { b.ch = make(chan struct{}, 1) }

// Give hands the turn to the goroutine that takes it (now or later).
func (b *Baton) Give() { b.ch <- struct{}{} }

// Take waits for a Give and consumes it.
func (b *Baton) Take() { <-b.ch }
