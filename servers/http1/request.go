package http1

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// A Field is one header field as the peer sent it: the name with its case
// kept, the value with the whitespace around it trimmed.
type Field struct {
	Name, Value string
}

// A Request is one parsed HTTP/1.x request. The server reuses it for the next
// request on the same connection: a Handler must not keep it, its Header or
// its Body after it returns.
type Request struct {
	Method string
	Target string  // as sent: origin-form "/path?q", absolute-form, "*" or authority-form
	Minor  int     // the x of HTTP/1.x: 0 for HTTP/1.0, 1 (or more) for HTTP/1.1
	Header []Field // every field in order, Content-Length and Transfer-Encoding included
	Body   []byte  // the body, chunked transfer coding removed

	// Close says the connection ends after this request's response:
	// HTTP/1.1 with "Connection: close", or HTTP/1.0 without
	// "Connection: keep-alive".
	Close bool
	// Chunked says the body came with Transfer-Encoding: chunked.
	Chunked bool
	// Expect100 says the client sent "Expect: 100-continue".
	Expect100 bool

	contentLength int64 // -1: none
}

// Get returns the value of the first field named name (compared without
// case) and whether there was one.
func (r *Request) Get(name string) (string, bool) {
	for _, f := range r.Header {
		if equalFold(f.Name, name) {
			return f.Value, true
		}
	}
	return "", false
}

// Proto is the request's version as written on its request line.
func (r *Request) Proto() string { return "HTTP/1." + strconv.Itoa(r.Minor) }

// AppendWire appends the request to dst as a client would send it: the
// request line, every header field but Content-Length and Transfer-Encoding,
// and the body with a Content-Length (none when the body is empty). Parsing
// the result gives the same request with Chunked false: the fuzz target's
// round trip.
func (r *Request) AppendWire(dst []byte) []byte {
	dst = append(dst, r.Method...)
	dst = append(dst, ' ')
	dst = append(dst, r.Target...)
	dst = append(dst, ' ')
	dst = append(dst, r.Proto()...)
	dst = append(dst, "\r\n"...)
	for _, f := range r.Header {
		if isFraming(f.Name) {
			continue
		}
		dst = append(dst, f.Name...)
		dst = append(dst, ": "...)
		dst = append(dst, f.Value...)
		dst = append(dst, "\r\n"...)
	}
	if len(r.Body) > 0 {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(r.Body)), 10)
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "\r\n"...)
	return append(dst, r.Body...)
}

func isFraming(name string) bool {
	return equalFold(name, "Content-Length") || equalFold(name, "Transfer-Encoding")
}

// Limits bound what one request may make the server hold.
type Limits struct {
	MaxLine        int   // request line, header line or chunk-size line, without its CRLF
	MaxHeaderBytes int   // all header lines (and a chunked body's trailer lines) together, CRLFs included
	MaxHeaders     int   // header fields (trailer fields included)
	MaxBody        int64 // the body, after the chunked coding is removed
}

// DefaultLimits are the limits a zero field of Limits stands for.
var DefaultLimits = Limits{MaxLine: 8 << 10, MaxHeaderBytes: 16 << 10, MaxHeaders: 100, MaxBody: 1 << 20}

func (l Limits) orDefault() Limits {
	if l.MaxLine <= 0 {
		l.MaxLine = DefaultLimits.MaxLine
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultLimits.MaxHeaderBytes
	}
	if l.MaxHeaders <= 0 {
		l.MaxHeaders = DefaultLimits.MaxHeaders
	}
	if l.MaxBody <= 0 {
		l.MaxBody = DefaultLimits.MaxBody
	}
	return l
}

// A ParseError is a request the server answers with Status and then closes
// the connection on: after a malformed request the next one cannot be found.
type ParseError struct {
	Status int    // 400, 413, 414, 417, 431, 501 or 505
	Reason string // what was wrong, for the response body and the log
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("http1: %d %s: %s", e.Status, StatusText(e.Status), e.Reason)
}

func bad(status int, format string, args ...any) *ParseError {
	return &ParseError{Status: status, Reason: fmt.Sprintf(format, args...)}
}

var errLineTooLong = errors.New("line too long")

// ReadRequest reads one request from br into req (reusing its Header and Body
// storage) with the limits lim (zero fields: DefaultLimits). It returns io.EOF
// when br ends before the request's first byte, io.ErrUnexpectedEOF when it
// ends inside one, a *ParseError for a request to refuse, or another error
// of br's.
func ReadRequest(br *bufio.Reader, lim Limits, req *Request) error {
	p := parser{br: br, lim: lim.orDefault()}
	if err := p.readHead(req); err != nil {
		return err
	}
	return p.readBody(req)
}

// parser reads requests from one connection; scratch holds a line longer
// than br's buffer.
type parser struct {
	br      *bufio.Reader
	lim     Limits
	scratch []byte
}

// readLine returns the next line without its LF and without a CR before it
// (RFC 9112, section 2.2 lets a recipient take a bare LF as a line end), valid
// until the next read. A line longer than max is errLineTooLong; EOF before
// any byte is io.EOF, inside the line io.ErrUnexpectedEOF.
func (p *parser) readLine(max int) ([]byte, error) {
	line, err := p.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		p.scratch = append(p.scratch[:0], line...)
		for err == bufio.ErrBufferFull && len(p.scratch) <= max+1 {
			line, err = p.br.ReadSlice('\n')
			p.scratch = append(p.scratch, line...)
		}
		line = p.scratch
		if err == bufio.ErrBufferFull {
			return nil, errLineTooLong
		}
	}
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) > max+mutantLineSlack() {
		return nil, errLineTooLong
	}
	return line, nil
}

// readHead reads the request line and the header fields and decides the
// body's framing (RFC 9112, sections 3, 5 and 6.3).
func (p *parser) readHead(req *Request) error {
	*req = Request{Header: req.Header[:0], Body: req.Body[:0], contentLength: -1}
	var line []byte
	var err error
	for first := true; ; first = false {
		line, err = p.readLine(p.lim.MaxLine)
		if err == io.EOF && !first {
			err = io.ErrUnexpectedEOF // empty lines, then the end
		}
		if err == errLineTooLong {
			return bad(414, "request line longer than %d bytes", p.lim.MaxLine)
		}
		if err != nil {
			return err
		}
		if len(line) > 0 { // RFC 9112, 2.2: a server SHOULD ignore empty lines before the request line
			break
		}
	}
	if err := parseRequestLine(line, req); err != nil {
		return err
	}
	total := 0
	for {
		line, err = p.readLine(p.lim.MaxLine)
		if err == errLineTooLong {
			return bad(431, "header line longer than %d bytes", p.lim.MaxLine)
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		if len(line) == 0 {
			break
		}
		total += len(line) + 2
		if total > p.lim.MaxHeaderBytes && mutant != headerLimitIgnored {
			return bad(431, "header fields longer than %d bytes together", p.lim.MaxHeaderBytes)
		}
		if len(req.Header) >= p.lim.MaxHeaders {
			return bad(431, "more than %d header fields", p.lim.MaxHeaders)
		}
		f, err := parseField(line)
		if err != nil {
			return err
		}
		req.Header = append(req.Header, f)
	}
	return p.frame(req)
}

// parseRequestLine parses method SP request-target SP HTTP-version.
func parseRequestLine(line []byte, req *Request) error {
	sp1 := indexByte(line, ' ')
	if sp1 <= 0 {
		return bad(400, "malformed request line")
	}
	rest := line[sp1+1:]
	sp2 := indexByte(rest, ' ')
	if sp2 <= 0 {
		return bad(400, "malformed request line")
	}
	method, target, version := line[:sp1], rest[:sp2], rest[sp2+1:]
	for _, c := range method {
		if !isTokenChar(c) {
			return bad(400, "invalid method")
		}
	}
	for _, c := range target {
		if c <= ' ' || c == 0x7f {
			return bad(400, "invalid request target")
		}
	}
	// HTTP-version = "HTTP/" DIGIT "." DIGIT, case-sensitive (RFC 9112, 2.3).
	if len(version) != 8 || string(version[:5]) != "HTTP/" || version[6] != '.' ||
		!isDigit(version[5]) || !isDigit(version[7]) {
		return bad(400, "malformed HTTP version")
	}
	if version[5] != '1' {
		return bad(505, "HTTP/%c.%c is not served", version[5], version[7])
	}
	req.Method, req.Target, req.Minor = string(method), string(target), int(version[7]-'0')
	return nil
}

// parseField parses field-name ":" OWS field-value OWS (RFC 9112, 5).
func parseField(line []byte) (Field, error) {
	if line[0] == ' ' || line[0] == '\t' {
		return Field{}, bad(400, "obsolete line folding") // RFC 9112, 5.2: a server may reject it with 400
	}
	colon := indexByte(line, ':')
	if colon <= 0 {
		return Field{}, bad(400, "header line without a name and a colon")
	}
	name, value := line[:colon], line[colon+1:]
	for _, c := range name {
		if !isTokenChar(c) { // whitespace before the colon included (RFC 9112, 5.1: 400)
			return Field{}, bad(400, "invalid header field name")
		}
	}
	for len(value) > 0 && (value[0] == ' ' || value[0] == '\t') {
		value = value[1:]
	}
	for n := len(value); n > 0 && (value[n-1] == ' ' || value[n-1] == '\t'); n = len(value) {
		value = value[:n-1]
	}
	for _, c := range value {
		if c < ' ' && c != '\t' || c == 0x7f {
			return Field{}, bad(400, "invalid byte in header field value")
		}
	}
	return Field{Name: string(name), Value: string(value)}, nil
}

// frame reads the framing and connection fields: Host, Content-Length,
// Transfer-Encoding, Connection and Expect.
func (p *parser) frame(req *Request) error {
	hosts, keepAlive, closeTok := 0, false, false
	var te string
	teSeen := false
	for _, f := range req.Header {
		switch {
		case equalFold(f.Name, "Host"):
			hosts++
		case equalFold(f.Name, "Content-Length"):
			n, ok := parseContentLength(f.Value)
			if !ok {
				return bad(400, "invalid Content-Length %q", f.Value)
			}
			if req.contentLength >= 0 && req.contentLength != n {
				return bad(400, "Content-Length fields disagree")
			}
			req.contentLength = n
		case equalFold(f.Name, "Transfer-Encoding"):
			if teSeen {
				te += ","
			}
			te += f.Value
			teSeen = true
		case equalFold(f.Name, "Connection"):
			for tok := range tokens(f.Value) {
				switch {
				case equalFold(tok, "close"):
					closeTok = true
				case equalFold(tok, "keep-alive"):
					keepAlive = true
				}
			}
		case equalFold(f.Name, "Expect"):
			if !equalFold(f.Value, "100-continue") {
				return bad(417, "unsupported expectation %q", f.Value)
			}
			req.Expect100 = true
		}
	}
	if req.Minor >= 1 && hosts != 1 { // RFC 9112, 3.2: exactly one Host in HTTP/1.1, else 400
		return bad(400, "%d Host fields in an HTTP/1.1 request", hosts)
	}
	if hosts > 1 {
		return bad(400, "%d Host fields", hosts)
	}
	req.Close = closeTok || req.Minor == 0 && !keepAlive
	if mutant == http10KeepsAlive {
		req.Close = closeTok
	}
	if !teSeen {
		return nil
	}
	// RFC 9112, 6.1 and 6.3: Transfer-Encoding with Content-Length, or in
	// HTTP/1.0, is a message to refuse (a smuggling vector); chunked must
	// be the final coding; a coding this server does not know is 501.
	if req.contentLength >= 0 {
		return bad(400, "Transfer-Encoding and Content-Length together")
	}
	if req.Minor == 0 {
		return bad(400, "Transfer-Encoding in an HTTP/1.0 request")
	}
	n := 0
	for tok := range tokens(te) {
		n++
		if !equalFold(tok, "chunked") {
			return bad(501, "transfer coding %q is not implemented", tok)
		}
	}
	if n != 1 {
		return bad(400, "Transfer-Encoding must be chunked, once")
	}
	req.Chunked = true
	return nil
}

// parseContentLength accepts 1*DIGIT only: no sign, no list, no spaces.
func parseContentLength(v string) (int64, bool) {
	if v == "" || len(v) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return 0, false
		}
		n = n*10 + int64(v[i]-'0')
	}
	return n, true
}

// readBody reads the body readHead framed.
func (p *parser) readBody(req *Request) error {
	switch {
	case req.Chunked:
		return p.readChunked(req)
	case req.contentLength > p.lim.MaxBody:
		return bad(413, "body of %d bytes, more than %d", req.contentLength, p.lim.MaxBody)
	case req.contentLength > 0:
		n := int(req.contentLength)
		if mutant == contentLengthShort {
			n--
		}
		req.Body = grow(req.Body, n)
		if _, err := io.ReadFull(p.br, req.Body); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// readChunked removes the chunked coding (RFC 9112, 7.1): chunk-size in hex,
// extensions ignored, data, CRLF; then the last chunk, trailer fields
// (counted against the header limits, then dropped) and an empty line.
func (p *parser) readChunked(req *Request) error {
	for {
		line, err := p.readLine(p.lim.MaxLine)
		if err == errLineTooLong {
			return bad(400, "chunk-size line longer than %d bytes", p.lim.MaxLine)
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		size, ok := parseChunkSize(line)
		if !ok {
			return bad(400, "invalid chunk size line")
		}
		if size == 0 {
			break
		}
		if size > p.lim.MaxBody-int64(len(req.Body)) {
			return bad(413, "chunked body longer than %d bytes", p.lim.MaxBody)
		}
		old := len(req.Body)
		req.Body = grow(req.Body, old+int(size))
		if _, err := io.ReadFull(p.br, req.Body[old:]); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		if mutant == chunkCRLFUnchecked {
			continue
		}
		if err := p.chunkEnd(); err != nil {
			return err
		}
	}
	total, fields := 0, 0
	for {
		line, err := p.readLine(p.lim.MaxLine)
		if err == errLineTooLong {
			return bad(431, "trailer line longer than %d bytes", p.lim.MaxLine)
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		if len(line) == 0 {
			return nil
		}
		total += len(line) + 2
		fields++
		if total > p.lim.MaxHeaderBytes || fields > p.lim.MaxHeaders {
			return bad(431, "trailer fields over the header limits")
		}
		if _, err := parseField(line); err != nil {
			return err
		}
	}
}

// chunkEnd reads the CRLF (or LF) after a chunk's data.
func (p *parser) chunkEnd() error {
	c, err := p.br.ReadByte()
	if err == nil && c == '\r' {
		c, err = p.br.ReadByte()
	}
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	if err != nil {
		return err
	}
	if c != '\n' {
		return bad(400, "chunk data not followed by CRLF")
	}
	return nil
}

// parseChunkSize parses 1*HEXDIG [ BWS ";" extensions ], at most 15 digits.
func parseChunkSize(line []byte) (int64, bool) {
	var n int64
	i := 0
	for ; i < len(line); i++ {
		d, ok := unhex(line[i])
		if !ok {
			break
		}
		if i == 15 {
			return 0, false
		}
		n = n<<4 | int64(d)
	}
	if i == 0 {
		return 0, false
	}
	rest := line[i:]
	for len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') {
		rest = rest[1:]
	}
	if len(rest) > 0 && rest[0] != ';' {
		return 0, false
	}
	return n, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// grow returns b with length n, reusing its array when it is large enough.
func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	return append(b[:cap(b)], make([]byte, n-cap(b))...)
}

// tokens yields the non-empty elements of a comma-separated list, trimmed.
func tokens(v string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for len(v) > 0 {
			i := 0
			for i < len(v) && v[i] != ',' {
				i++
			}
			tok := v[:i]
			if i < len(v) {
				v = v[i+1:]
			} else {
				v = ""
			}
			for len(tok) > 0 && (tok[0] == ' ' || tok[0] == '\t') {
				tok = tok[1:]
			}
			for n := len(tok); n > 0 && (tok[n-1] == ' ' || tok[n-1] == '\t'); n = len(tok) {
				tok = tok[:n-1]
			}
			if tok != "" && !yield(tok) {
				return
			}
		}
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isTokenChar reports whether c is a tchar (RFC 9110, 5.6.2).
func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', isDigit(c):
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// equalFold compares ASCII strings without case.
func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
