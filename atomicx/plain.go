package atomicx

// PlainSlice is a slice of Plain cells, one per element, for a buffer of
// plain slots (a ring's array): each element is a cell of its own, so the
// explorer tells the slots apart and reports a race on one slot only.
type PlainSlice[T any] []Plain[T]

// MakePlainSlice returns a PlainSlice of n zero cells.
func MakePlainSlice[T any](n int) PlainSlice[T] { return make(PlainSlice[T], n) }

// Load reads element i (a plain read, as s[i].Load()).
func (s PlainSlice[T]) Load(i int) T { return s[i].Load() }

// Store writes element i (a plain write, as s[i].Store(v)).
func (s PlainSlice[T]) Store(i int, v T) { s[i].Store(v) }
