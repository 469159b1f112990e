package atomicx

import "context"

// Cancel is a cancellation signal that one thread raises and others watch,
// as a context.Context's Done and its CancelFunc: Cancel closes the Done
// channel once, so Recv on it returns and its DoneCase is ready in a
// Select. Under the explorer Cancel is one scheduling point (OpCancel),
// and it happens before every observation of it. Make one with NewCancel.
type Cancel struct{ done *Chan[struct{}] }

// NewCancel returns a Cancel not yet cancelled.
func NewCancel() *Cancel { return &Cancel{NewChan[struct{}](0)} }

// Cancel raises the signal; calls after the first do nothing, as a
// context's CancelFunc.
func (c *Cancel) Cancel() { c.done.closeOnce() }

// Done returns the channel Cancel closes: Recv on it waits for Cancel.
func (c *Cancel) Done() *Chan[struct{}] { return c.done }

// DoneCase is the case "<-Done()" of a Select.
func (c *Cancel) DoneCase() Case { return c.done.RecvCase(nil, nil) }

// Err returns context.Canceled once Cancel has been called, else nil, as a
// context's Err (under the explorer, a TryRecv on Done: a scheduling point).
func (c *Cancel) Err() error {
	if _, _, ready := c.done.TryRecv(); ready {
		return context.Canceled
	}
	return nil
}
