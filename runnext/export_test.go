package runnext

import "unsafe"

// Test-only views of a slot and a queue, for tests in package runnext_test.
// Each reads atomically and changes nothing.

// Version returns the slot's version: odd while it holds a task, one more
// after every fill and every take.
func Version[T any](s *Slot[T]) uint64 { return s.ver.Load() }

// QueueVersion returns the version of q's slot.
func QueueVersion[T any](q *Queue[T]) uint64 { return q.next.ver.Load() }

// TaskCell returns what the slot's task cell holds: the task of the current
// fill, or of the last one after it was taken (nil before the first put and
// after a Drain).
func TaskCell[T any](s *Slot[T]) *T { return s.task.Load() }

// QueueTaskCell returns the task cell of q's slot.
func QueueTaskCell[T any](q *Queue[T]) *T { return q.next.task.Load() }

// Next returns q's runnext task without taking it; nil if the slot is empty.
func Next[T any](q *Queue[T]) *T {
	if q.next.full() {
		return q.next.task.Load()
	}
	return nil
}

// Seq returns q's count of the owner's publications (odd while a task moves).
func Seq[T any](q *Queue[T]) uint64 { return q.seq.Load() }

// Checked reports whether this is a schedkit_checked build.
const Checked = checked

// StealHalfFrom is q.StealHalf(dst, stealNext), reporting also whether the
// task it returns came from q's runnext slot.
func StealHalfFrom[T any](q, dst *Queue[T], stealNext bool) (t *T, fromSlot bool) {
	return q.stealHalf(dst, stealNext)
}

// VersionAddr returns the address of q's slot version, the cell a
// schedcheck hook sees when an operation reads or writes it.
func VersionAddr[T any](q *Queue[T]) uintptr { return uintptr(unsafe.Pointer(&q.next.ver)) }

// SetTaskCell stores t in q's slot's task cell, as a broken Drain that
// forgot to clear it would leave it (for the reachability test's broken
// variant).
func SetTaskCell[T any](q *Queue[T], t *T) { q.next.task.Store(t) }

// TaskCellAddr returns the address of q's slot task cell, for a schedcheck
// hook.
func TaskCellAddr[T any](q *Queue[T]) uintptr { return uintptr(unsafe.Pointer(&q.next.task)) }

// SlotTaskCellAddr returns the address of s's task cell, for a schedcheck
// hook.
func SlotTaskCellAddr[T any](s *Slot[T]) uintptr { return uintptr(unsafe.Pointer(&s.task)) }

// SeqAddr returns the address of q's seq, for a schedcheck hook.
func SeqAddr[T any](q *Queue[T]) uintptr { return uintptr(unsafe.Pointer(&q.seq)) }
