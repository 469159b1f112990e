package http1

// A mutation is a seeded fault in the request parser, for proving that its
// checkers catch real bugs (docs/DESIGN.md, rung 8). In a normal build the
// current mutation is the constant noMutation and every faulty branch
// compiles away; under the build tag schedmutant a test selects one with
// SetMutation.
type mutation uint8

const (
	noMutation mutation = iota
	// ContentLengthShort: the body is read one byte short of its
	// Content-Length, the off-by-one that leaves the last byte to be
	// parsed as the start of the next request.
	contentLengthShort
	// HeaderLimitIgnored: the total size of the header fields is not
	// checked, so a client can make the server hold any number of
	// bytes of header (up to MaxHeaders lines of MaxLine) with no 431.
	headerLimitIgnored
	// LineLimitOffByOne: a line one byte longer than MaxLine passes.
	lineLimitOffByOne
	// HTTP10KeepsAlive: an HTTP/1.0 request without "Connection:
	// keep-alive" keeps the connection open, so an HTTP/1.0 client that
	// reads to EOF waits for ever.
	http10KeepsAlive
	// ChunkCRLFUnchecked: the CRLF after a chunk's data is not consumed,
	// so it is read as the next chunk-size line.
	chunkCRLFUnchecked
)

// mutationNames are the names the tests and the kill matrix share.
var mutationNames = [...]string{
	noMutation:         "none",
	contentLengthShort: "ContentLengthShort",
	headerLimitIgnored: "HeaderLimitIgnored",
	lineLimitOffByOne:  "LineLimitOffByOne",
	http10KeepsAlive:   "HTTP10KeepsAlive",
	chunkCRLFUnchecked: "ChunkCRLFUnchecked",
}

// mutantLineSlack is how many bytes past Limits.MaxLine a line may run.
func mutantLineSlack() int {
	if mutant == lineLimitOffByOne {
		return 1
	}
	return 0
}
