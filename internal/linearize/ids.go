package linearize

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strings"
)

// The components' histories record items as ids: a test's items are *int,
// each pointing at its own id, and a model's state and operations hold the
// ids, so that porcupine compares and prints plain values. These helpers are
// the parts of that every component's model needs alike.

// Items returns n distinct items with the ids first, first+1, ...; nil for
// none.
func Items(first, n int) []*int {
	ids := Seq(first, n)
	if ids == nil {
		return nil
	}
	ps := make([]*int, n)
	for i := range ids {
		ps[i] = &ids[i]
	}
	return ps
}

// Seq returns the n ids first, first+1, ...: what IDs gives back for
// Items(first, n), nil for none.
func Seq(first, n int) []int {
	if n <= 0 {
		return nil
	}
	ids := make([]int, n)
	for i := range ids {
		ids[i] = first + i
	}
	return ids
}

// IDs maps items to their ids, in order; nil for none, so that an output
// with no items compares equal to the zero output.
func IDs(ps []*int) []int {
	if len(ps) == 0 {
		return nil
	}
	ids := make([]int, len(ps))
	for i, p := range ps {
		ids[i] = *p
	}
	return ids
}

// describeWhole is the longest list DescribeIDs prints whole; a longer one
// keeps its first and last describeWhole/2.
const describeWhole = 12

// DescribeIDs lists ids as fmt prints a slice, eliding the middle of a long
// list (more than 12) to its first and last six and how many are left out,
// so that a model's DescribeOperation and DescribeState stay one short line
// even for a full ring.
func DescribeIDs(ids []int) string {
	if len(ids) <= describeWhole {
		return fmt.Sprint(ids)
	}
	const k = describeWhole / 2
	head := strings.Trim(fmt.Sprint(ids[:k]), "[]")
	tail := strings.Trim(fmt.Sprint(ids[len(ids)-k:]), "[]")
	return fmt.Sprintf("[%s ...%d more... %s]", head, len(ids)-describeWhole, tail)
}

// HashWords is a porcupine.Model Hash for a state made of a few words and a
// list of ids: FNV-1a (64-bit) of words and then ids, each as 8
// little-endian bytes. States with the same words and ids hash alike, as
// the Hash contract needs; pack into words every field the model's Equal
// compares besides the ids.
func HashWords(words []uint64, ids []int) uint64 {
	b := make([]byte, 0, 8*(len(words)+len(ids)))
	for _, w := range words {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	for _, v := range ids {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}
