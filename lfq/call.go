package lfq

// ownerCall names a call that acts as a ring's owner, for the checked
// build's panics.
type ownerCall uint32

const (
	callNone ownerCall = iota
	callPut
	callPutBatch
	callGet
	callDrain
	callStealHalf // on its destination
)

var ownerCallNames = [...]string{
	callNone:      "no call",
	callPut:       "Ring.Put",
	callPutBatch:  "Ring.PutBatch",
	callGet:       "Ring.Get",
	callDrain:     "Ring.Drain",
	callStealHalf: "Ring.StealHalf (into this ring)",
}

func (c ownerCall) String() string {
	if int(c) < len(ownerCallNames) {
		return ownerCallNames[c]
	}
	return "an unknown call"
}
