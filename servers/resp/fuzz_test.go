package resp_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"testing"

	"github.com/schedkit/schedkit/servers/resp"
)

// fuzzLimits are small, so the fuzzer reaches every limit.
var fuzzLimits = resp.Limits{MaxInline: 48, MaxArgs: 6, MaxBulk: 24, MaxCommand: 64}

// commandSeeds are the fuzz target's seeds written here; testdata/fuzz holds
// the ones copied from the shared go-fuzz corpus (testdata/README.md).
var commandSeeds = []string{
	"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
	"*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n*3\r\n$3\r\nSET\r\n$1\r\nn\r\n$19\r\n9223372036854775807\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n",
	"PING\r\nPING \"hello world\"\r\n*2\r\n$4\r\nPING\r\n$0\r\n\r\n",
	"SET 'it\\'s' \"\\x41\\n\"\nGET 'it\\'s'\r\n\r\n*0\r\n",
	"*1\r\n$-1\r\n",
	"*2\r\n$3\r\nGET\r\n:1\r\n",
	"FOO a b\r\n*1\r\n$4\r\nPIN",
}

// checkCommandStream is the fuzz target's property on one input: reading
// commands never panics, ends with io.EOF, io.ErrUnexpectedEOF or a
// *ProtocolError, keeps to the limits; every command read, written back
// with AppendCommand and read again, is the same command; and running it
// on a store answers exactly one well-formed reply.
func checkCommandStream(data []byte) error {
	r := resp.NewReader(bufio.NewReaderSize(bytes.NewReader(data), 16), fuzzLimits)
	st := resp.NewStore()
	for i := 0; ; i++ {
		args, err := r.ReadCommand()
		var pe *resp.ProtocolError
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF || errors.As(err, &pe):
			return nil
		case err != nil:
			return fmt.Errorf("command %d: unexpected error %v", i, err)
		}
		total := 0
		for _, a := range args {
			total += len(a)
		}
		if len(args) == 0 || len(args) > fuzzLimits.MaxArgs || total > fuzzLimits.MaxCommand {
			return fmt.Errorf("command %d over the limits: %d arguments, %d bytes", i, len(args), total)
		}
		wire := resp.AppendCommand(nil, args...)
		back := resp.NewReader(bufio.NewReaderSize(bytes.NewReader(wire), 16), fuzzLimits)
		got, err := back.ReadCommand()
		if err != nil || !slices.EqualFunc(got, args, bytes.Equal) {
			return fmt.Errorf("command %d %q written as %q reads back as %q, %v", i, args, wire, got, err)
		}
		if _, err := back.ReadCommand(); err != io.EOF {
			return fmt.Errorf("command %d %q written as %q: more after it (%v)", i, args, wire, err)
		}
		reply := st.Exec(nil, args)
		br := bufio.NewReader(bytes.NewReader(reply))
		if _, err := readReply(br); err != nil || br.Buffered() != 0 {
			return fmt.Errorf("command %d %q: reply %q is not one reply (%v)", i, args, reply, err)
		}
	}
}

func FuzzParseRESP(f *testing.F) {
	for _, s := range commandSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := checkCommandStream(data); err != nil {
			t.Fatal(err)
		}
	})
}

// checkCommandSeeds is the round-trip checker's verdict: the property on
// every seed written here.
func checkCommandSeeds() error {
	for i, s := range commandSeeds {
		if err := checkCommandStream([]byte(s)); err != nil {
			return fmt.Errorf("seed %d: %w", i, err)
		}
	}
	return nil
}

// readReply reads one RESP2 reply and returns it as the test's clients
// compare it: "+OK", "-ERR …", ":1", "$-1" (the null bulk string), the bulk
// string's bytes, or "*n" then each element.
func readReply(br *bufio.Reader) (string, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return "", fmt.Errorf("reply line %q", line)
	}
	line = line[:len(line)-2]
	switch line[0] {
	case '+', '-':
		return line, nil
	case ':':
		if _, err := strconv.ParseInt(line[1:], 10, 64); err != nil {
			return "", fmt.Errorf("integer reply %q", line)
		}
		return line, nil
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < -1 {
			return "", fmt.Errorf("bulk length %q", line)
		}
		if n == -1 {
			return "$-1", nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(br, b); err != nil {
			return "", err
		}
		if string(b[n:]) != "\r\n" {
			return "", fmt.Errorf("bulk of %d bytes not followed by CRLF", n)
		}
		return string(b[:n]), nil
	}
	return "", fmt.Errorf("reply line %q", line)
}
