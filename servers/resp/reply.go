package resp

import "strconv"

// AppendBulk appends b as a bulk string reply: "$<len>\r\n<b>\r\n".
func AppendBulk(dst, b []byte) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(b)), 10)
	dst = append(dst, "\r\n"...)
	dst = append(dst, b...)
	return append(dst, "\r\n"...)
}

// AppendNull appends the null bulk string, "$-1\r\n" (GET of a missing key).
func AppendNull(dst []byte) []byte { return append(dst, "$-1\r\n"...) }

// AppendInt appends an integer reply, ":<n>\r\n".
func AppendInt(dst []byte, n int64) []byte {
	dst = append(dst, ':')
	dst = strconv.AppendInt(dst, n, 10)
	return append(dst, "\r\n"...)
}

// AppendSimple appends a simple string reply, "+<s>\r\n".
func AppendSimple(dst []byte, s string) []byte {
	dst = append(dst, '+')
	dst = append(dst, s...)
	return append(dst, "\r\n"...)
}

// AppendError appends an error reply, "-<msg>\r\n", with any CR or LF in msg
// made a space, as Redis makes them (an error is one line).
func AppendError(dst []byte, msg string) []byte {
	dst = append(dst, '-')
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		dst = append(dst, c)
	}
	return append(dst, "\r\n"...)
}
