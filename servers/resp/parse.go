package resp

import (
	"bufio"
	"errors"
	"io"
	"strconv"
)

// Limits bound what one command may make the server hold.
type Limits struct {
	MaxInline  int // an inline command's line, and a "*n" or "$n" line, without its line end
	MaxArgs    int // arguments of one command (the n of "*n")
	MaxBulk    int // one bulk string argument
	MaxCommand int // all the arguments of one command together
}

// DefaultLimits are the limits a zero field of Limits stands for. Redis's
// own are larger (64 KiB inline, 512 MiB a bulk string); a workload needs
// none of that.
var DefaultLimits = Limits{MaxInline: 64 << 10, MaxArgs: 1024, MaxBulk: 512 << 10, MaxCommand: 1 << 20}

func (l Limits) orDefault() Limits {
	if l.MaxInline <= 0 {
		l.MaxInline = DefaultLimits.MaxInline
	}
	if l.MaxArgs <= 0 {
		l.MaxArgs = DefaultLimits.MaxArgs
	}
	if l.MaxBulk <= 0 {
		l.MaxBulk = DefaultLimits.MaxBulk
	}
	if l.MaxCommand <= 0 {
		l.MaxCommand = DefaultLimits.MaxCommand
	}
	return l
}

// A ProtocolError is input that is not RESP. The server answers it with
// "-ERR Protocol error: <Msg>" and closes the connection, as Redis does:
// the next command cannot be found after it.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "ERR Protocol error: " + e.Msg }

func protoErr(msg string) *ProtocolError { return &ProtocolError{Msg: msg} }

var errTooLong = errors.New("line too long")

// A Reader reads commands from one connection: arrays of bulk strings, as
// clients send them ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"), and inline commands,
// a line of words as a person or redis-benchmark's PING_INLINE types it
// ("PING\r\n"), split as Redis's sdssplitargs splits them (double quotes with
// \n \r \t \b \a \\ \" and \xHH escapes, single quotes with \').
type Reader struct {
	br      *bufio.Reader
	lim     Limits
	buf     []byte // the arguments, one after another
	ends    []int
	args    [][]byte
	scratch []byte
}

// NewReader reads commands from br with the limits lim (zero fields:
// DefaultLimits).
func NewReader(br *bufio.Reader, lim Limits) *Reader {
	return &Reader{br: br, lim: lim.orDefault()}
}

// Buffered is how many bytes the reader holds that no command has taken.
func (r *Reader) Buffered() int { return r.br.Buffered() }

// ReadCommand returns the next command's arguments (never none: empty lines
// and "*0" are skipped, as Redis skips them), valid until the next call. It
// returns io.EOF when the input ends between commands, io.ErrUnexpectedEOF
// when it ends inside one, a *ProtocolError for input that is not RESP, or
// another error of the reader's.
func (r *Reader) ReadCommand() ([][]byte, error) {
	for {
		r.buf, r.ends = r.buf[:0], r.ends[:0]
		c, err := r.br.ReadByte()
		if err != nil {
			return nil, err
		}
		if c == '*' {
			err = r.readArray()
		} else {
			r.br.UnreadByte()
			err = r.readInline()
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if len(r.ends) == 0 {
			continue
		}
		r.args = r.args[:0]
		start := 0
		for _, end := range r.ends {
			r.args = append(r.args, r.buf[start:end:end])
			start = end
		}
		return r.args, nil
	}
}

// readLine returns the next line without its LF and a CR before it; crlf
// requires the CR (Redis requires it after "*n" and "$n").
func (r *Reader) readLine(crlf bool) ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.scratch = append(r.scratch[:0], line...)
		for err == bufio.ErrBufferFull && len(r.scratch) <= r.lim.MaxInline+1 {
			line, err = r.br.ReadSlice('\n')
			r.scratch = append(r.scratch, line...)
		}
		line = r.scratch
		if err == bufio.ErrBufferFull {
			return nil, errTooLong
		}
	}
	if err != nil {
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	} else if crlf {
		return nil, protoErr("expected CRLF")
	}
	if len(line) > r.lim.MaxInline {
		return nil, errTooLong
	}
	return line, nil
}

// readArray reads "*n\r\n" (the '*' taken) and n bulk strings "$len\r\n<len
// bytes>\r\n", with Redis's error words (networking.c,
// processMultibulkBuffer).
func (r *Reader) readArray() error {
	line, err := r.readLine(true)
	if err == errTooLong {
		return protoErr("too big mbulk count string")
	}
	if err != nil {
		return err
	}
	n, ok := parseInt(line)
	if !ok || n > int64(r.lim.MaxArgs) {
		return protoErr("invalid multibulk length")
	}
	for i := int64(0); i < n; i++ {
		c, err := r.br.ReadByte()
		if err != nil {
			return err
		}
		if c != '$' {
			return protoErr("expected '$', got '" + string(rune(c)) + "'")
		}
		line, err := r.readLine(true)
		if err == errTooLong {
			return protoErr("too big bulk count string")
		}
		if err != nil {
			return err
		}
		size, ok := parseInt(line)
		if !ok || size < 0 || size > int64(r.lim.MaxBulk) || int64(len(r.buf))+size > int64(r.lim.MaxCommand) {
			return protoErr("invalid bulk length")
		}
		if mutant == bulkLenShort && size > 0 {
			size--
		}
		start := len(r.buf)
		r.buf = grow(r.buf, start+int(size)+2)
		if _, err := io.ReadFull(r.br, r.buf[start:]); err != nil {
			return err
		}
		if r.buf[len(r.buf)-2] != '\r' || r.buf[len(r.buf)-1] != '\n' {
			return protoErr("expected CRLF after a bulk string")
		}
		r.buf = r.buf[:len(r.buf)-2]
		r.ends = append(r.ends, len(r.buf))
	}
	return nil
}

// readInline reads a line of words.
func (r *Reader) readInline() error {
	line, err := r.readLine(false)
	if err == errTooLong {
		return protoErr("too big inline request")
	}
	if err != nil {
		return err
	}
	return r.splitArgs(line)
}

// splitArgs splits an inline command as sdssplitargs (sds.c) does.
func (r *Reader) splitArgs(line []byte) error {
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return nil
		}
		inDq, inSq := false, false
		for done := false; !done; {
			switch {
			case inDq:
				switch {
				case i == len(line):
					return protoErr("unbalanced quotes in request")
				case line[i] == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					r.buf = append(r.buf, unhex(line[i+2])<<4|unhex(line[i+3]))
					i += 3
				case line[i] == '\\' && i+1 < len(line):
					i++
					c := line[i]
					switch c {
					case 'n':
						c = '\n'
					case 'r':
						c = '\r'
					case 't':
						c = '\t'
					case 'b':
						c = '\b'
					case 'a':
						c = '\a'
					}
					r.buf = append(r.buf, c)
				case line[i] == '"':
					// A closing quote must be followed by a space or the end.
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return protoErr("unbalanced quotes in request")
					}
					done = true
				default:
					r.buf = append(r.buf, line[i])
				}
			case inSq:
				switch {
				case i == len(line):
					return protoErr("unbalanced quotes in request")
				case line[i] == '\\' && i+1 < len(line) && line[i+1] == '\'':
					i++
					r.buf = append(r.buf, '\'')
				case line[i] == '\'':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return protoErr("unbalanced quotes in request")
					}
					done = true
				default:
					r.buf = append(r.buf, line[i])
				}
			default:
				switch {
				case i == len(line):
					done = true
					i-- // the i++ below: stay at the end
				case isSpace(line[i]):
					done = true
				case line[i] == '"':
					inDq = true
				case line[i] == '\'':
					inSq = true
				default:
					r.buf = append(r.buf, line[i])
				}
			}
			i++
		}
		start := 0
		if n := len(r.ends); n > 0 {
			start = r.ends[n-1]
		}
		if len(r.ends) == r.lim.MaxArgs || len(r.buf) > r.lim.MaxCommand || len(r.buf)-start > r.lim.MaxBulk {
			return protoErr("too big inline request")
		}
		r.ends = append(r.ends, len(r.buf))
	}
}

// isSpace is C's isspace, as sdssplitargs uses it.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// parseInt parses a decimal int64 as Redis's string2ll does: an optional
// '-', no '+', no leading zeros (but "0"), no spaces, no overflow.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := b[0] == '-'
	digits := b
	if neg {
		digits = b[1:]
	}
	if len(digits) == 0 || digits[0] < '1' || digits[0] > '9' {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	return v, err == nil
}

// AppendCommand appends args as a RESP array of bulk strings, as a client
// sends a command.
func AppendCommand(dst []byte, args ...[]byte) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, "\r\n"...)
	for _, a := range args {
		dst = AppendBulk(dst, a)
	}
	return dst
}

func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	return append(b[:cap(b)], make([]byte, n-cap(b))...)
}
