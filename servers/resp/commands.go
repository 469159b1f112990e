package resp

// Exec runs one command (args[0] its name, without case) on the store and
// appends its reply to dst: PING [message], SET key value, GET key, INCR key,
// with Redis's replies and error words; any other name is an unknown
// command. QUIT is the server's (it answers +OK and closes the connection).
func (s *Store) Exec(dst []byte, args [][]byte) []byte {
	name := args[0]
	switch {
	case equalFold(name, "PING"):
		switch len(args) {
		case 1:
			return AppendSimple(dst, "PONG")
		case 2:
			return AppendBulk(dst, args[1])
		}
		return arity(dst, "ping")
	case equalFold(name, "SET"):
		switch {
		case len(args) < 3:
			return arity(dst, "set")
		case len(args) > 3: // SET's options (EX, NX, …) are not served
			return AppendError(dst, "ERR syntax error")
		}
		s.Set(args[1], args[2])
		return AppendSimple(dst, "OK")
	case equalFold(name, "GET"):
		if len(args) != 2 && mutant != arityUnchecked {
			return arity(dst, "get")
		}
		return s.AppendGet(dst, args[1])
	case equalFold(name, "INCR"):
		if len(args) != 2 {
			return arity(dst, "incr")
		}
		n, err := s.Incr(args[1])
		if err != nil {
			return AppendError(dst, err.Error())
		}
		return AppendInt(dst, n)
	}
	return unknown(dst, args)
}

// arity is Redis's reply to a command with the wrong number of arguments.
func arity(dst []byte, cmd string) []byte {
	return AppendError(dst, "ERR wrong number of arguments for '"+cmd+"' command")
}

// unknown is Redis's (7.x) reply to an unknown command: the name (up to 128
// bytes) and the arguments, each quoted and followed by a space, until the
// list reaches 128 bytes (server.c, processCommand).
func unknown(dst []byte, args [][]byte) []byte {
	msg := []byte("ERR unknown command '")
	msg = append(msg, args[0][:min(len(args[0]), 128)]...)
	msg = append(msg, "', with args beginning with: "...)
	list := 0
	for _, a := range args[1:] {
		if list >= 128 {
			break
		}
		a = a[:min(len(a), 128-list)]
		msg = append(msg, '\'')
		msg = append(msg, a...)
		msg = append(msg, "' "...)
		list += len(a) + 3
	}
	return AppendError(dst, string(msg))
}

// equalFold reports whether b is the ASCII upper-case word w without case.
func equalFold(b []byte, w string) bool {
	if len(b) != len(w) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}
