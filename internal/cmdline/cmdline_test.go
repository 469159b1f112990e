package cmdline

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Quote's output, read back by a real shell, gives the same arguments:
// plain ones stay bare, the empty one and those with spaces, quotes, $ or
// globs come back whole. A Quote that left "a b" or "" bare, or did not
// escape a quote, splits or drops an argument here.
func TestQuoteRoundTrip(t *testing.T) {
	args := []string{"-run", "^(chain|skewed)$", "", "a b", "it's", "$HOME", "*", "-cpu=1,2", "x'y z"}
	assert.Equal(t, " -run '^(chain|skewed)$' '' 'a b' 'it'\\''s' '$HOME' '*' -cpu=1,2 'x'\\''y z'", Quote(args))
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh here")
	}
	out, err := exec.Command(sh, "-c", "set --"+Quote(args)+`; for a in "$@"; do printf '%s\n' "[$a]"; done`).Output()
	require.NoError(t, err)
	want := ""
	for _, a := range args {
		want += "[" + a + "]\n"
	}
	assert.Equal(t, want, string(out))
}
