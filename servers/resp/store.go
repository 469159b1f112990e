package resp

import (
	"errors"
	"hash/maphash"
	"math"
	"strconv"
	"sync"
)

const shards = 64

// A Store is the server's string keys, safe for concurrent use: 64 shards,
// each a map under its own mutex, held only for the map operation (and the
// read, add and write of INCR, which must be one step).
type Store struct {
	seed   maphash.Seed
	shards [shards]shard
}

type shard struct {
	mu sync.Mutex
	m  map[string][]byte
	_  [40]byte // one shard a cache line
}

// NewStore returns an empty store.
func NewStore() *Store {
	s := &Store{seed: maphash.MakeSeed()}
	for i := range s.shards {
		s.shards[i].m = map[string][]byte{}
	}
	return s
}

func (s *Store) shard(key []byte) *shard {
	return &s.shards[maphash.Bytes(s.seed, key)%shards]
}

// Set stores a copy of v under key.
func (s *Store) Set(key, v []byte) {
	v = append([]byte(nil), v...)
	sh := s.shard(key)
	sh.mu.Lock()
	sh.m[string(key)] = v
	sh.mu.Unlock()
}

// AppendGet appends key's value to dst as a bulk string reply, or the null
// bulk string when key is missing.
func (s *Store) AppendGet(dst, key []byte) []byte {
	sh := s.shard(key)
	sh.mu.Lock()
	v, ok := sh.m[string(key)]
	sh.mu.Unlock()
	if !ok {
		return AppendNull(dst)
	}
	return AppendBulk(dst, v) // v is never written in place: Set and Incr store new slices
}

// Get returns a copy of key's value and whether key is present.
func (s *Store) Get(key []byte) ([]byte, bool) {
	sh := s.shard(key)
	sh.mu.Lock()
	v, ok := sh.m[string(key)]
	sh.mu.Unlock()
	return append([]byte(nil), v...), ok
}

// The errors of Incr, worded as Redis words them.
var (
	ErrNotInteger = errors.New("ERR value is not an integer or out of range")
	ErrOverflow   = errors.New("ERR increment or decrement would overflow")
)

// Incr adds one to the integer stored under key (a missing key counts as
// 0) and returns the new value, in one step under the shard's lock.
func (s *Store) Incr(key []byte) (int64, error) {
	sh := s.shard(key)
	sh.mu.Lock()
	n, err := int64(0), error(nil)
	if v, ok := sh.m[string(key)]; ok {
		var valid bool
		if n, valid = parseInt(v); !valid {
			err = ErrNotInteger
		}
	}
	if err == nil && n == math.MaxInt64 && mutant != incrWraps {
		err = ErrOverflow
	}
	if err == nil {
		n++
		sh.m[string(key)] = strconv.AppendInt(nil, n, 10)
	}
	sh.mu.Unlock()
	return n, err
}
