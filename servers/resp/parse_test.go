package resp_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/servers/resp"
)

// tableLimits are small, so each limit's boundary is a short input.
var tableLimits = resp.Limits{MaxInline: 32, MaxArgs: 4, MaxBulk: 8, MaxCommand: 20}

// A parseCase is a byte stream and what a Reader makes of it: the commands
// in order, then the error that ends it (io.EOF unless end or proto is set).
type parseCase struct {
	name  string
	in    string
	want  [][]string
	proto string // the ProtocolError's message after want
	end   error  // io.ErrUnexpectedEOF when the input ends inside a command
}

func cmd(args ...string) []string { return args }

var parseCases = []parseCase{
	{name: "empty stream", in: ""},
	{name: "array", in: "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n", want: [][]string{cmd("SET", "k", "hello")}},
	{
		name: "pipelined arrays, binary and empty arguments",
		in:   "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*3\r\n$3\r\nSET\r\n$4\r\n\r\n\x00\xff\r\n$0\r\n\r\n*1\r\n$4\r\nPING\r\n",
		want: [][]string{cmd("GET", "k"), cmd("SET", "\r\n\x00\xff", ""), cmd("PING")},
	},
	{name: "inline PING as redis-benchmark sends it", in: "PING\r\n", want: [][]string{cmd("PING")}},
	{name: "inline with a bare LF, tabs and runs of spaces", in: "  SET\tk   v \n", want: [][]string{cmd("SET", "k", "v")}},
	{
		name: "inline quotes and escapes",
		in:   `SET "a b\x41\n" 'it\'s' "q\"\\"` + "\r\n",
		want: [][]string{cmd("SET", "a bA\n", "it's", `q"\`)},
	},
	{name: "empty lines and empty arrays are skipped", in: "\r\n\r\n*0\r\n*-1\r\nPING\r\n", want: [][]string{cmd("PING")}},
	{name: "inline then array", in: "PING\r\n*1\r\n$4\r\nPING\r\n", want: [][]string{cmd("PING"), cmd("PING")}},
	// The limits' boundaries.
	{name: "bulk of MaxBulk bytes", in: "*2\r\n$3\r\nGET\r\n$8\r\n01234567\r\n", want: [][]string{cmd("GET", "01234567")}},
	{name: "bulk of MaxBulk+1 bytes", in: "*2\r\n$3\r\nGET\r\n$9\r\n012345678\r\n", proto: "invalid bulk length"},
	{name: "MaxArgs arguments", in: "*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n", want: [][]string{cmd("a", "b", "c", "d")}},
	{name: "MaxArgs+1 arguments", in: "*5\r\n", proto: "invalid multibulk length"},
	{name: "command of MaxCommand bytes", in: "*3\r\n$4\r\nabcd\r\n$8\r\n01234567\r\n$8\r\n01234567\r\n", want: [][]string{cmd("abcd", "01234567", "01234567")}},
	{name: "command of MaxCommand+1 bytes", in: "*3\r\n$5\r\nabcde\r\n$8\r\n01234567\r\n$8\r\n01234567\r\n", proto: "invalid bulk length"},
	{name: "inline of MaxInline bytes", in: "GET" + strings.Repeat(" ", 26) + "abc\r\n", want: [][]string{cmd("GET", "abc")}},
	{name: "inline of MaxInline+1 bytes", in: "GET" + strings.Repeat(" ", 27) + "abc\r\n", proto: "too big inline request"},
	{name: "inline of MaxCommand+1 bytes", in: "GET " + strings.Repeat("a", 18) + "\r\n", proto: "too big inline request"},
	{name: "inline word of MaxBulk bytes", in: "GET 01234567\r\n", want: [][]string{cmd("GET", "01234567")}},
	{name: "inline word of MaxBulk+1 bytes", in: "GET 012345678\r\n", proto: "too big inline request"},
	{name: "inline of MaxArgs+1 words", in: "a b c d e\r\n", proto: "too big inline request"},
	// Not RESP.
	{name: "array count not a number", in: "*x\r\n", proto: "invalid multibulk length"},
	{name: "array count with a plus", in: "*+1\r\n", proto: "invalid multibulk length"},
	{name: "array count with a leading zero", in: "*01\r\n", proto: "invalid multibulk length"},
	{name: "array count without CR", in: "*1\n$4\r\nPING\r\n", proto: "expected CRLF"},
	{name: "not a bulk string", in: "*1\r\n:1\r\n", proto: "expected '$', got ':'"},
	{name: "bulk length negative", in: "*1\r\n$-1\r\n", proto: "invalid bulk length"},
	{name: "bulk length not a number", in: "*1\r\n$a\r\n", proto: "invalid bulk length"},
	{name: "bulk without its CRLF", in: "*1\r\n$4\r\nPINGxx", proto: "expected CRLF after a bulk string"},
	{name: "bulk longer than its length", in: "*1\r\n$3\r\nPING\r\n", proto: "expected CRLF after a bulk string"},
	{name: "unbalanced double quote", in: "SET \"k v\r\n", proto: "unbalanced quotes in request"},
	{name: "unbalanced single quote", in: "SET 'k\r\n", proto: "unbalanced quotes in request"},
	{name: "closing quote followed by a letter", in: "SET \"k\"v\r\n", proto: "unbalanced quotes in request"},
	{name: "array count line too long", in: "*" + strings.Repeat("1", 33) + "\r\n", proto: "too big mbulk count string"},
	// Ends inside a command.
	{name: "inside an inline command", in: "PIN", end: io.ErrUnexpectedEOF},
	{name: "after the array count", in: "*2\r\n", end: io.ErrUnexpectedEOF},
	{name: "inside a bulk", in: "*1\r\n$4\r\nPI", end: io.ErrUnexpectedEOF},
	{name: "before a bulk's CRLF", in: "*1\r\n$4\r\nPING", end: io.ErrUnexpectedEOF},
}

// checkParseCase runs one case over a reader of 16 bytes (the smallest
// bufio allows, so lines longer than it take the long path) and of 4096.
func checkParseCase(c parseCase) error {
	for _, size := range []int{16, 4096} {
		r := resp.NewReader(bufio.NewReaderSize(strings.NewReader(c.in), size), tableLimits)
		for i := 0; ; i++ {
			args, err := r.ReadCommand()
			if err != nil {
				if i < len(c.want) {
					return fmt.Errorf("buffer %d: command %d: %v, want %q", size, i, err, c.want[i])
				}
				var pe *resp.ProtocolError
				switch {
				case c.proto != "":
					if !errors.As(err, &pe) || pe.Msg != c.proto {
						return fmt.Errorf("buffer %d: ends with %v, want protocol error %q", size, err, c.proto)
					}
				case err != cmpErr(c.end, io.EOF):
					return fmt.Errorf("buffer %d: ends with %v, want %v", size, err, cmpErr(c.end, io.EOF))
				}
				break
			}
			if i >= len(c.want) {
				return fmt.Errorf("buffer %d: command %d %q, want the end", size, i, args)
			}
			if got := strs(args); !slices.Equal(got, c.want[i]) {
				return fmt.Errorf("buffer %d: command %d %q, want %q", size, i, got, c.want[i])
			}
		}
	}
	return nil
}

func cmpErr(err, or error) error {
	if err == nil {
		return or
	}
	return err
}

func strs(args [][]byte) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}

// checkParseCases is the table's verdict: the first case it fails.
func checkParseCases() error {
	for _, c := range parseCases {
		if err := checkParseCase(c); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

func TestReadCommand(t *testing.T) {
	for _, c := range parseCases {
		t.Run(c.name, func(t *testing.T) {
			if err := checkParseCase(c); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// An execCase is commands run in order on a new store and their replies.
type execCase struct {
	name string
	cmds [][]string
	want string
}

var execCases = []execCase{
	{name: "PING", cmds: [][]string{{"PING"}, {"ping", "hi there"}, {"Ping", "a", "b"}},
		want: "+PONG\r\n$8\r\nhi there\r\n-ERR wrong number of arguments for 'ping' command\r\n"},
	{name: "SET and GET", cmds: [][]string{{"GET", "k"}, {"SET", "k", "v\r\n"}, {"get", "k"}, {"SET", "k", ""}, {"GET", "k"}},
		want: "$-1\r\n+OK\r\n$3\r\nv\r\n\r\n+OK\r\n$0\r\n\r\n"},
	{name: "arity", cmds: [][]string{{"GET"}, {"GET", "a", "b"}, {"SET", "k"}, {"INCR"}, {"INCR", "a", "b"}, {"SET", "k", "v", "EX"}},
		want: "-ERR wrong number of arguments for 'get' command\r\n-ERR wrong number of arguments for 'get' command\r\n" +
			"-ERR wrong number of arguments for 'set' command\r\n-ERR wrong number of arguments for 'incr' command\r\n" +
			"-ERR wrong number of arguments for 'incr' command\r\n-ERR syntax error\r\n"},
	{name: "INCR", cmds: [][]string{{"INCR", "n"}, {"INCR", "n"}, {"SET", "m", "-5"}, {"INCR", "m"}, {"GET", "n"}},
		want: ":1\r\n:2\r\n+OK\r\n:-4\r\n$1\r\n2\r\n"},
	{name: "INCR of what is not an integer", cmds: [][]string{
		{"SET", "a", "x"}, {"INCR", "a"}, {"SET", "a", " 1"}, {"INCR", "a"}, {"SET", "a", "01"}, {"INCR", "a"},
		{"SET", "a", "+1"}, {"INCR", "a"}, {"SET", "a", "9223372036854775808"}, {"INCR", "a"}, {"SET", "a", ""}, {"INCR", "a"}},
		want: strings.Repeat("+OK\r\n-ERR value is not an integer or out of range\r\n", 6)},
	{name: "INCR at the int64 bounds", cmds: [][]string{
		{"SET", "a", "9223372036854775806"}, {"INCR", "a"}, {"INCR", "a"}, {"GET", "a"},
		{"SET", "b", "-9223372036854775808"}, {"INCR", "b"}},
		want: "+OK\r\n:9223372036854775807\r\n-ERR increment or decrement would overflow\r\n$19\r\n9223372036854775807\r\n+OK\r\n:-9223372036854775807\r\n"},
	{name: "unknown commands", cmds: [][]string{{"FLUSHALL"}, {"foo", "a", "b c"}, {"x\r\ny", strings.Repeat("z", 200), "w"}},
		want: "-ERR unknown command 'FLUSHALL', with args beginning with: \r\n" +
			"-ERR unknown command 'foo', with args beginning with: 'a' 'b c' \r\n" +
			"-ERR unknown command 'x  y', with args beginning with: '" + strings.Repeat("z", 128) + "' \r\n"},
}

func checkExecCase(c execCase) error {
	st := resp.NewStore()
	var out []byte
	for _, args := range c.cmds {
		var bs [][]byte
		for _, a := range args {
			bs = append(bs, []byte(a))
		}
		out = st.Exec(out, bs)
	}
	if string(out) != c.want {
		return fmt.Errorf("replies\n%q\nwant\n%q", out, c.want)
	}
	return nil
}

// checkExecCases is the command table's verdict: the first case it fails.
// A command that panics fails it too (a seeded mutant may index past the
// arguments), with the case's name.
func checkExecCases() (err error) {
	for _, c := range execCases {
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			err = checkExecCase(c)
		}()
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

func TestExec(t *testing.T) {
	for _, c := range execCases {
		t.Run(c.name, func(t *testing.T) {
			if err := checkExecCase(c); err != nil {
				t.Fatal(err)
			}
		})
	}
}
