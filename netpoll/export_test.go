package netpoll

// Sem names direction m's semaphore: "nil", "ready", "wait" or "parked"
// (the runtime's pdNil, pdReady, pdWait and a parked g). Tests only: the
// model and the explorer's checks compare it with what they expect.
func Sem[W any](d *Desc[W], m Mode) string {
	s, _ := d.sem(m)
	return [...]string{pdNil: "nil", pdReady: "ready", pdWait: "wait", pdParked: "parked"}[s.Load()]
}
