package runnext

// Test-only views of a slot and a queue, for tests in package runnext_test.
// Each reads atomically and changes nothing.

// PutTime returns the atomicx.Nanotime the slot recorded at its last put.
func PutTime[T any](s *Slot[T]) int64 { return s.putAt.Load() }

// QueuePutTime returns the put time of q's slot.
func QueuePutTime[T any](q *Queue[T]) int64 { return q.next.putAt.Load() }

// Next returns q's runnext task without taking it.
func Next[T any](q *Queue[T]) *T { return q.next.task.Load() }

// Seq returns q's count of the owner's publications (odd while a task moves).
func Seq[T any](q *Queue[T]) uint64 { return q.seq.Load() }
