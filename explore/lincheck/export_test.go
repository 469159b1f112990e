package lincheck

// SetAcceptAll replaces the checker with one that accepts every history (a
// broken checker), and returns a function restoring it.
func SetAcceptAll(on bool) (restore func()) {
	old := linAcceptAll
	linAcceptAll = on
	return func() { linAcceptAll = old }
}
