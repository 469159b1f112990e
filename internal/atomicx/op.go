package atomicx

// Op names one kind of access to a shared cell; the explorer's traces print it.
type Op uint8

// The operations a cell offers.
const (
	OpLoad Op = iota
	OpStore
	OpAdd
	OpSwap
	OpCAS
)

var opNames = [...]string{OpLoad: "load", OpStore: "store", OpAdd: "add", OpSwap: "swap", OpCAS: "cas"}

// String returns the operation's short name, as traces print it.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "op?"
}
