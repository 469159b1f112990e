package resp

// A mutation is a seeded fault in the RESP parser or the commands, for
// proving that their checkers catch real bugs (docs/DESIGN.md, rung 8). In a
// normal build the current mutation is the constant noMutation and every
// faulty branch compiles away; under the build tag schedmutant a test
// selects one with SetMutation.
type mutation uint8

const (
	noMutation mutation = iota
	// BulkLenShort: a bulk string is read one byte short of its length,
	// the off-by-one that leaves its last byte where the CRLF is looked for.
	bulkLenShort
	// ArityUnchecked: GET runs with any number of arguments instead of
	// answering "wrong number of arguments for 'get' command".
	arityUnchecked
	// IncrWraps: INCR of 9223372036854775807 wraps to the smallest int64
	// instead of answering "increment or decrement would overflow".
	incrWraps
)

// mutationNames are the names the tests and the kill matrix share.
var mutationNames = [...]string{
	noMutation:     "none",
	bulkLenShort:   "BulkLenShort",
	arityUnchecked: "ArityUnchecked",
	incrWraps:      "IncrWraps",
}
