// Package readme holds the test that the repository's README.md says what
// the code does: each Go block marked <!-- readme: path [Func] --> is the
// named file, or the body of the named Example, byte for byte; every
// -fuzz= pattern in a .md or .go file is anchored and names exactly one
// fuzz target of the package its command runs, under the command's build
// tags; every go test -run in a .md file or a Go comment that names a test
// anchors it (RESULTS.md, a record of commands as they were run, aside);
// and the README's replay command, run as printed, reproduces the
// failure its comment lines show (schedule, message, trace steps), while
// the exploring command before it still prints that replay line. The
// relative links of README.md and docs/DESIGN.md name files that exist and
// headings that do, and the README's two commands are the main job and what
// .ci/run runs. The package has no code of its own.
package readme
