package lfq

// SetIndices moves an empty ring's head and tail to i, so that a test can
// start a ring anywhere in the uint32 index space, near the wraparound
// included. It panics if r is not empty. Tests only, single goroutine.
func SetIndices[T any](r *Ring[T], i uint32) {
	if r.head.Load() != r.tail.Load() {
		panic("lfq: SetIndices called on a ring that is not empty")
	}
	r.head.Store(i)
	r.tail.Store(i)
}

// Indices returns r's head and tail. Tests only.
func Indices[T any](r *Ring[T]) (head, tail uint32) {
	return r.head.Load(), r.tail.Load()
}

// Contents returns the items between head and tail, oldest first, without
// consuming them. Tests only, with no concurrent caller.
func Contents[T any](r *Ring[T]) []*T {
	h, tl := r.head.Load(), r.tail.Load()
	if tl-h > Size {
		panic("lfq: Contents: tail-head exceeds Size")
	}
	out := make([]*T, 0, tl-h)
	for i := h; i != tl; i++ {
		out = append(out, r.slots[i%Size].Load())
	}
	return out
}
