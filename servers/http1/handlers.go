package http1

// A Handler answers one request. It runs on the connection's own loop (a
// goroutine, or a task on the executor), one request at a time; it must not
// keep req, or anything in it, after it returns.
type Handler func(req *Request) Response

var (
	textPlain   = []Field{{"Content-Type", "text/plain; charset=utf-8"}}
	octetStream = []Field{{"Content-Type", "application/octet-stream"}}
	allowGet    = []Field{{"Allow", "GET, HEAD"}, {"Content-Type", "text/plain; charset=utf-8"}}
	allowPost   = []Field{{"Allow", "POST"}, {"Content-Type", "text/plain; charset=utf-8"}}
	helloBody   = []byte("Hello, World!")
)

// Hello answers "Hello, World!" as text/plain.
func Hello(*Request) Response {
	return Response{Status: 200, Header: textPlain, Body: helloBody}
}

// Echo answers with the request's body, and its Content-Type when it has
// one (application/octet-stream when not).
func Echo(req *Request) Response {
	h := octetStream
	if ct, ok := req.Get("Content-Type"); ok {
		h = []Field{{"Content-Type", ct}}
	}
	return Response{Status: 200, Header: h, Body: req.Body}
}

// Routes is the workload's handler: GET or HEAD / is Hello, POST /echo is
// Echo, another method on those paths is 405 with Allow, any other path 404.
// The path is the target up to '?', after the scheme and authority of an
// absolute-form target.
func Routes(req *Request) Response {
	switch path(req.Target) {
	case "/":
		if req.Method == "GET" || req.Method == "HEAD" {
			return Hello(req)
		}
		return Response{Status: 405, Header: allowGet, Body: []byte("method not allowed\n")}
	case "/echo":
		if req.Method == "POST" {
			return Echo(req)
		}
		return Response{Status: 405, Header: allowPost, Body: []byte("method not allowed\n")}
	}
	return Response{Status: 404, Header: textPlain, Body: []byte("not found\n")}
}

// path is the path of a request target: before '?', after "scheme://host".
func path(target string) string {
	for _, scheme := range [...]string{"http://", "https://"} {
		if len(target) > len(scheme) && equalFold(target[:len(scheme)], scheme) {
			target = target[len(scheme):]
			i := 0
			for i < len(target) && target[i] != '/' && target[i] != '?' {
				i++
			}
			target = target[i:]
			if target == "" || target[0] == '?' {
				target = "/" + target
			}
			break
		}
	}
	for i := 0; i < len(target); i++ {
		if target[i] == '?' {
			return target[:i]
		}
	}
	return target
}
