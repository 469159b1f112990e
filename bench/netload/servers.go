package netload

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/schedkit/schedkit/executor"
	"github.com/schedkit/schedkit/servers/http1"
	"github.com/schedkit/schedkit/servers/resp"
	"github.com/schedkit/schedkit/tasknet"
)

// The servers a workload compares, by impl name.
const (
	// Executor is servers/http1 or servers/resp on schedkit's executor:
	// Server.Serve on a tasknet listener (its accept loop on a goroutine)
	// with SpawnConn set to tasknet.SpawnConn, so each connection's loop is
	// a task whose Read and Write park it on the poller.
	Executor = "schedkit"
	// Goroutines is the same server on package net, a goroutine per
	// connection (Server.Serve with no Spawn).
	Goroutines = "go"
	// NetHTTP is net/http's Server with handlers answering as http1.Routes
	// does (GET / and POST /echo): the server most Go users would write.
	NetHTTP = "nethttp"
)

// A Server is one running server.
type Server struct {
	Addr string // host:port on loopback
	// Ms is the executor's Ms made so far (Stats.Ms); 0 for the others.
	Ms    func() int
	close func() error
}

// Close stops the server and waits for its connections' loops to end.
func (s *Server) Close() error { return s.close() }

// Start starts impl's server for proto on 127.0.0.1 with a port the
// kernel picks; on the executor with procs Ps (0: GOMAXPROCS).
func Start(impl string, proto Proto, procs int) (*Server, error) {
	switch impl {
	case Executor:
		ex, err := executor.New(executor.Config{Procs: procs})
		if err != nil {
			return nil, err
		}
		l, err := tasknet.Listen(ex, "tcp", "127.0.0.1:0")
		if err != nil {
			ex.Close()
			return nil, err
		}
		s := serveOurs(l, proto, tasknet.SpawnConn(ex))
		s.Ms = func() int { return ex.Stats().Ms }
		closeSrv := s.close
		// After the server's Close every connection's task has ended:
		// Close then reports any panic of theirs.
		s.close = func() error { return errors.Join(closeSrv(), ex.Close()) }
		return s, nil
	case Goroutines:
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		return serveOurs(l, proto, nil), nil
	case NetHTTP:
		if proto == RESP {
			return nil, fmt.Errorf("netload: %s serves HTTP only", impl)
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		hs := &http.Server{Handler: http.HandlerFunc(netHTTPRoutes)}
		done := make(chan error, 1)
		go func() { done <- hs.Serve(l) }()
		return &Server{Addr: l.Addr().String(), Ms: func() int { return 0 }, close: func() error {
			err := hs.Close()
			if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
				err = errors.Join(err, serr)
			}
			return err
		}}, nil
	}
	return nil, fmt.Errorf("netload: no server impl %q", impl)
}

// serveOurs serves proto's server of servers/ on l, its accept loop on a
// goroutine, each connection's loop started by spawnConn (nil: a
// goroutine).
func serveOurs(l net.Listener, proto Proto, spawnConn func(net.Conn, func(net.Conn))) *Server {
	var (
		serve    func(net.Listener) error
		closeSrv func() error
	)
	if proto == RESP {
		s := &resp.Server{Store: resp.NewStore(), SpawnConn: spawnConn}
		serve, closeSrv = s.Serve, s.Close
	} else {
		s := &http1.Server{Handler: http1.Routes, SpawnConn: spawnConn}
		serve, closeSrv = s.Serve, s.Close
	}
	done := make(chan error, 1)
	go func() { done <- serve(l) }()
	return &Server{Addr: l.Addr().String(), Ms: func() int { return 0 }, close: func() error {
		err := closeSrv()
		if serr := <-done; !errors.Is(serr, http1.ErrServerClosed) {
			err = errors.Join(err, fmt.Errorf("netload: Serve returned %v", serr))
		}
		return err
	}}
}

// netHTTPRoutes is http1.Routes' workload on net/http: GET / says hello,
// POST /echo echoes.
func netHTTPRoutes(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/" && (r.Method == "GET" || r.Method == "HEAD"):
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "Hello, World!")
	case r.URL.Path == "/echo" && r.Method == "POST":
		ct := r.Header.Get("Content-Type")
		if ct == "" {
			ct = "application/octet-stream"
		}
		w.Header().Set("Content-Type", ct)
		io.Copy(w, r.Body)
	default:
		http.NotFound(w, r)
	}
}
