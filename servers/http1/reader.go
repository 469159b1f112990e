package http1

import (
	"bufio"
	"io"
)

// readBufSize is a connection's read buffer; a line longer than it is read
// in pieces into the parser's scratch, up to Limits.MaxLine.
const readBufSize = 4096

func newReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, readBufSize) }
