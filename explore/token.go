package explore

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// tokenPrefix starts a compact schedule: "z" and the schedule's runs as
// varints (count-1)<<3 | thread, deflated when that is shorter, in
// unpadded URL base64 ("z" + one byte 0 for raw or 1 for deflated + the
// data). A spin of thousands of steps, whose long form ran to kilobytes,
// is a few dozen characters. Replay keys use it when the long form passes
// compactAbove characters; both forms are accepted wherever a schedule is.
const tokenPrefix = "z"

// compactAbove is the length of a long-form schedule past which the replay
// key carries the token instead.
const compactAbove = 48

// encodeToken writes s as a compact token.
func encodeToken(s []uint8) string {
	var raw []byte
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j] == s[i] {
			j++
		}
		raw = binary.AppendUvarint(raw, uint64(j-i-1)<<3|uint64(s[i]&7))
		i = j
	}
	data := append([]byte{0}, raw...)
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write(raw)
	w.Close()
	if z.Len()+1 < len(data) {
		data = append([]byte{1}, z.Bytes()...)
	}
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(data)
}

// maxTokenSteps bounds the steps a token may expand to.
const maxTokenSteps = 1 << 24

// parseToken reads what encodeToken writes.
func parseToken(tok string) ([]uint8, error) {
	data, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(tok, tokenPrefix))
	if err != nil || len(data) == 0 || data[0] > 1 {
		return nil, fmt.Errorf("bad schedule token %q", tok)
	}
	raw := data[1:]
	if data[0] == 1 {
		raw, err = io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw)), maxTokenSteps))
		if err != nil {
			return nil, fmt.Errorf("bad schedule token %q: %w", tok, err)
		}
	}
	out := []uint8{}
	for len(raw) > 0 {
		v, n := binary.Uvarint(raw)
		if n <= 0 {
			return nil, fmt.Errorf("bad schedule token %q: %w", tok, errors.New("truncated run"))
		}
		raw = raw[n:]
		count := v>>3 + 1
		if uint64(len(out))+count > maxTokenSteps {
			return nil, fmt.Errorf("bad schedule token %q: more than %d steps", tok, maxTokenSteps)
		}
		for range count {
			out = append(out, uint8(v&7))
		}
	}
	return out, nil
}

// replaySchedule is the schedule as a replay key carries it: the long form
// when it is short, else the token.
func replaySchedule(long string) string {
	if len(long) <= compactAbove || strings.HasPrefix(long, tokenPrefix) {
		return long
	}
	s, err := parseSchedule(long)
	if err != nil {
		return long
	}
	return encodeToken(s)
}
