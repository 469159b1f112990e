package netpoll

import "github.com/schedkit/schedkit/atomicx"

// chunkBits sizes a Table's chunks: 1024 entries, allocated as descriptors
// open, never moved, so a lookup reads two pointers and takes no lock.
const chunkBits = 10

type chunk[W any] [1 << chunkBits]atomicx.Pointer[Desc[W]]

// A Table hands out the 64-bit tags the kernel returns with each event
// (epoll_event.data) and maps them back to Descs, so no Go pointer goes to
// the kernel, and an event for a descriptor that has been freed since,
// and whose slot another descriptor now holds, is dropped instead of
// waking the new one's waiter: a tag is the slot's index and its
// generation. It plays the part of the runtime's pollCache and of the
// fdseq tag in the pointer that netpollopen gives epoll.
//
// Open and Free lock; Lookup, the poller's, does not. The zero Table is
// empty and ready to use.
type Table[W any] struct {
	dir atomicx.Pointer[[]*chunk[W]] // replaced, never changed, when it grows

	mu   atomicx.Mutex // Open and Free
	gen  []uint32      // each slot's generation, bumped by each Open of it
	free []uint32      // freed slots, reused last in, first out
	n    int           // Descs in the table
}

// Open enters d and returns its tag. d must not be in the table already.
func (t *Table[W]) Open(d *Desc[W]) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if d.tag.Load() != 0 {
		panic("netpoll: Table.Open of a Desc that is in a table already")
	}
	var i uint32
	if n := len(t.free); n > 0 {
		i = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		i = uint32(len(t.gen))
		t.gen = append(t.gen, 0)
		if int(i>>chunkBits) >= t.chunks() {
			t.grow()
		}
	}
	t.gen[i]++
	tag := uint64(t.gen[i])<<32 | uint64(i)
	t.n++
	d.tag.Store(tag) // before the slot: a Lookup that finds d finds its tag
	t.slot(i).Store(d)
	return tag
}

func (t *Table[W]) chunks() int {
	if dir := t.dir.Load(); dir != nil {
		return len(*dir)
	}
	return 0
}

// grow adds a chunk by publishing a new directory: lookups that loaded the
// old one still find every slot they can be asked for.
func (t *Table[W]) grow() {
	var dir []*chunk[W]
	if old := t.dir.Load(); old != nil {
		dir = append(dir, *old...)
	}
	dir = append(dir, new(chunk[W]))
	t.dir.Store(&dir)
}

func (t *Table[W]) slot(i uint32) *atomicx.Pointer[Desc[W]] {
	return &(*t.dir.Load())[i>>chunkBits][i&(1<<chunkBits-1)]
}

// Free takes d out of the table: from now on its tag looks up nothing, and
// its slot may go to another Desc under a new tag. It reports whether d was
// in the table.
func (t *Table[W]) Free(d *Desc[W]) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	tag := d.tag.Load()
	if tag == 0 {
		return false
	}
	t.n--
	i := uint32(tag)
	t.slot(i).Store(nil)
	d.tag.Store(0)
	t.free = append(t.free, i)
	return true
}

// Lookup returns the Desc a tag was given to, or nil if it has been freed
// since (the event is stale: drop it). It takes no lock.
func (t *Table[W]) Lookup(tag uint64) *Desc[W] {
	i := uint32(tag)
	dir := t.dir.Load()
	if dir == nil || int(i>>chunkBits) >= len(*dir) {
		return nil
	}
	c := (*dir)[i>>chunkBits]
	d := c[i&(1<<chunkBits-1)].Load()
	if d == nil {
		return nil
	}
	if mutant != lookupIgnoresGen && d.tag.Load() != tag {
		return nil
	}
	return d
}

// Len is the number of Descs in the table.
func (t *Table[W]) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}
