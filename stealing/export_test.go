package stealing

// NewEnum returns an enumeration of n Ps from start with the given stride,
// coprime with n or not, so that a test can show its permutation checker
// catching a stride that is not. Tests only.
func NewEnum(n, start, stride int) Enum {
	return Enum{count: uint32(n), pos: uint32(start), inc: uint32(stride)}
}
