package explore

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
)

const atomicxPath = "github.com/schedkit/schedkit/atomicx"

type namedObject struct {
	start, size uintptr
	typ         reflect.Type
	name        string
}

// cells names the addresses of one execution: raw addresses differ from one
// execution to the next, names and first-access numbers do not.
type cells struct {
	named []namedObject
	ids   map[uintptr]int
	// known caches name's answers until the next add: every step names its
	// cell, and the search of named with fieldPath's reflection was a sixth
	// of a large executor scenario's CPU (blocker-retake, 26,544
	// executions).
	known map[uintptr]string
}

// paths caches fieldPath by type and offset for every exploration: the
// addresses change from one execution to the next, the paths do not.
var paths sync.Map // pathKey → string

type pathKey struct {
	typ reflect.Type
	off uintptr
}

func (c *cells) add(start uintptr, typ reflect.Type, name string) {
	size := max(typ.Size(), 1)
	c.named = append(c.named, namedObject{start, size, typ, name})
	clear(c.known) // a later Name covering a known address renames it
}

// name returns the cell's name; the latest Name call covering it wins.
func (c *cells) name(addr uintptr) string {
	if addr == 0 {
		return "clock"
	}
	if s, ok := c.known[addr]; ok {
		return s
	}
	if c.known == nil {
		c.known = make(map[uintptr]string)
	}
	s := c.lookup(addr)
	c.known[addr] = s
	return s
}

// lookup is name without the cache.
func (c *cells) lookup(addr uintptr) string {
	for i := len(c.named) - 1; i >= 0; i-- {
		o := &c.named[i]
		if addr >= o.start && addr-o.start < o.size {
			return o.name + cachedFieldPath(o.typ, addr-o.start)
		}
	}
	if c.ids == nil {
		c.ids = make(map[uintptr]int)
	}
	id, ok := c.ids[addr]
	if !ok {
		id = len(c.ids) + 1
		c.ids[addr] = id
	}
	return "#" + strconv.Itoa(id)
}

// ref returns "&name" if v is the address of a named object.
func (c *cells) ref(v uint64) string {
	if v == 0 {
		return ""
	}
	for i := len(c.named) - 1; i >= 0; i-- {
		if uint64(c.named[i].start) == v {
			return "&" + c.named[i].name
		}
	}
	return ""
}

// cachedFieldPath is fieldPath through paths.
func cachedFieldPath(t reflect.Type, off uintptr) string {
	k := pathKey{t, off}
	if s, ok := paths.Load(k); ok {
		return s.(string)
	}
	s := fieldPath(t, off)
	paths.Store(k, s)
	return s
}

// fieldPath names offset off inside a value of type t: ".f" for a struct
// field, "[i]" for an array element, down to an atomicx cell; what is left
// over prints as "+off".
func fieldPath(t reflect.Type, off uintptr) string {
	var b strings.Builder
walk:
	for t.PkgPath() != atomicxPath {
		switch t.Kind() {
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				if f.Name != "_" && off >= f.Offset && off-f.Offset < f.Type.Size() {
					b.WriteString("." + f.Name)
					off -= f.Offset
					t = f.Type
					continue walk
				}
			}
			break walk
		case reflect.Array:
			es := t.Elem().Size()
			if es == 0 {
				break walk
			}
			i := off / es
			b.WriteString("[" + strconv.FormatUint(uint64(i), 10) + "]")
			off -= i * es
			t = t.Elem()
		default:
			break walk
		}
	}
	if off != 0 {
		b.WriteString("+" + strconv.FormatUint(uint64(off), 10))
	}
	return b.String()
}
