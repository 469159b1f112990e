package http1

import "strconv"

// A Response is what a Handler answers. The server adds Content-Length (from
// Body) and, when the connection ends after it, "Connection: close"; a
// Handler must not set either.
type Response struct {
	Status int
	Header []Field
	Body   []byte
}

// AppendResponse appends resp to dst as HTTP/1.1 (the version a server
// answers HTTP/1.0 requests with too, RFC 9110, 2.5): the status line, the
// handler's fields, Content-Length and the connection's fate, then the body
// unless head is set (a response to HEAD carries the length but no body).
// keepAlive10 adds "Connection: keep-alive" for an HTTP/1.0 client that asked
// for it.
func AppendResponse(dst []byte, resp *Response, close, keepAlive10, head bool) []byte {
	dst = append(dst, "HTTP/1.1 "...)
	dst = strconv.AppendInt(dst, int64(resp.Status), 10)
	dst = append(dst, ' ')
	dst = append(dst, StatusText(resp.Status)...)
	dst = append(dst, "\r\n"...)
	for _, f := range resp.Header {
		dst = append(dst, f.Name...)
		dst = append(dst, ": "...)
		dst = append(dst, f.Value...)
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(resp.Body)), 10)
	switch {
	case close:
		dst = append(dst, "\r\nConnection: close"...)
	case keepAlive10:
		dst = append(dst, "\r\nConnection: keep-alive"...)
	}
	dst = append(dst, "\r\n\r\n"...)
	if head {
		return dst
	}
	return append(dst, resp.Body...)
}

// StatusText is the reason phrase of the status codes this server sends
// ("" for others).
func StatusText(code int) string {
	switch code {
	case 100:
		return "Continue"
	case 200:
		return "OK"
	case 400:
		return "Bad Request"
	case 404:
		return "Not Found"
	case 405:
		return "Method Not Allowed"
	case 413:
		return "Content Too Large"
	case 414:
		return "URI Too Long"
	case 417:
		return "Expectation Failed"
	case 431:
		return "Request Header Fields Too Large"
	case 500:
		return "Internal Server Error"
	case 501:
		return "Not Implemented"
	case 505:
		return "HTTP Version Not Supported"
	}
	return ""
}
