// Package cmdline writes a command's arguments back as a POSIX shell would
// read them, for the command lines that schedkit records beside its
// results (bench/RESULTS.md).
package cmdline

import "strings"

// Quote returns args as a shell takes them back, each after a space: as
// it is when it holds only letters, digits and -_./=,:+, else in single
// quotes, where a single quote inside closes the quoting, is escaped with
// a backslash, and reopens it.
func Quote(args []string) string {
	var b strings.Builder
	for _, a := range args {
		b.WriteByte(' ')
		if plain(a) {
			b.WriteString(a)
		} else {
			b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
		}
	}
	return b.String()
}

func plain(a string) bool {
	if a == "" {
		return false
	}
	for _, r := range a {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=,:+", r)) {
			return false
		}
	}
	return true
}
