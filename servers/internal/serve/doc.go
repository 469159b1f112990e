// Package serve is what the servers under servers/ share: an accept loop
// that starts each connection's loop with a spawn func and tracks the
// connections so that Close can end them, and a connection reader that
// writes the pending responses before it would block.
//
// The loop and the reader see only net.Listener and net.Conn: the same code
// runs on goroutines with package net and on the executor's task-side
// listener. Two things in it block their caller and are meant to: the
// backoff after an Accept out of fds sleeps (time.Sleep), and LingerClose
// reads with a read deadline. On the executor, a task doing either holds
// its P for that time unless the sleep and the read park it.
package serve
