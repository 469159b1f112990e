package readme

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// root is the repository's root, two levels above this package.
var root = filepath.Join("..", "..")

func readREADME(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ---- Go blocks that are examples ----

var markerRE = regexp.MustCompile("<!-- readme: (\\S+)(?: (\\w+))? -->\n```go\n")

type snippet struct {
	file, fn string // fn "" means the whole file
	text     string // the block's text
}

// snippets returns the marked Go blocks of a README.
func snippets(readme string) ([]snippet, error) {
	var out []snippet
	for _, m := range markerRE.FindAllStringSubmatchIndex(readme, -1) {
		start := m[1]
		end := strings.Index(readme[start:], "```")
		if end < 0 {
			return nil, fmt.Errorf("the block after %q never ends", readme[m[0]:m[1]])
		}
		s := snippet{file: readme[m[2]:m[3]], text: readme[start : start+end]}
		if m[4] >= 0 {
			s.fn = readme[m[4]:m[5]]
		}
		out = append(out, s)
	}
	return out, nil
}

// source returns what a snippet must equal: the whole file, or the body
// of the function fn with one tab of indentation removed (the Output
// comment included).
func source(file, fn string) (string, error) {
	src, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		return "", err
	}
	if fn == "" {
		return string(src), nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn || fd.Body == nil {
			continue
		}
		body := string(src[fset.Position(fd.Body.Lbrace).Offset+1 : fset.Position(fd.Body.Rbrace).Offset])
		body = strings.TrimPrefix(body, "\n")
		var b strings.Builder
		for _, line := range strings.SplitAfter(body, "\n") {
			b.WriteString(strings.TrimPrefix(line, "\t"))
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("%s has no func %s", file, fn)
}

func checkSnippets(readme string) (int, error) {
	ss, err := snippets(readme)
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, s := range ss {
		want, err := source(s.file, s.fn)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if s.text != want {
			errs = append(errs, fmt.Errorf("README's block for %s %s differs from the code:\n--- README\n%s--- code\n%s", s.file, s.fn, s.text, want))
		}
	}
	return len(ss), errors.Join(errs...)
}

func TestExamplesAreTheCode(t *testing.T) {
	n, err := checkSnippets(readREADME(t))
	if err != nil {
		t.Fatal(err)
	}
	if n < 3 {
		t.Fatalf("%d marked Go blocks in README.md, want the three entry points at least", n)
	}
}

func TestExamplesCheckCatchesADrift(t *testing.T) {
	readme := readREADME(t)
	drifted := strings.Replace(readme, "// Output: 129 85 85 213 214", "// Output: 129 85 85 213 215", 1)
	if drifted == readme {
		t.Fatal("the lfq example's output line is not in README.md")
	}
	if _, err := checkSnippets(drifted); err == nil {
		t.Fatal("a README block that differs from its Example passed")
	}
	gone := strings.Replace(readme, "lfq/example_test.go Example -->", "lfq/example_test.go ExampleGone -->", 1)
	if _, err := checkSnippets(gone); err == nil {
		t.Fatal("a marker naming a missing Example passed")
	}
}

// ---- -fuzz= patterns ----

var (
	fuzzFlagRE = regexp.MustCompile(`-fuzz=('[^']*'|"[^"]*"|\S+)`)
	tagsRE     = regexp.MustCompile(`-tags[= ]([\w,]+)`)
	pkgArgRE   = regexp.MustCompile(`(?:^|\s)(\./[\w/.-]*|\.)(?:\s|$)`)
)

// fuzzUse is one -fuzz= on a line of a file.
type fuzzUse struct {
	where, pattern, dir string
	tags                []string
}

// fuzzUses finds every -fuzz= in text (a file at path, relative to root).
func fuzzUses(path, text string) []fuzzUse {
	var out []fuzzUse
	for i, line := range strings.Split(text, "\n") {
		for _, m := range fuzzFlagRE.FindAllStringSubmatch(line, -1) {
			u := fuzzUse{where: fmt.Sprintf("%s:%d", path, i+1), pattern: strings.Trim(m[1], `'"`)}
			if tm := tagsRE.FindStringSubmatch(line); tm != nil {
				u.tags = strings.Split(tm[1], ",")
			}
			u.dir = filepath.Dir(path) // a doc comment's command runs in its package
			if pm := pkgArgRE.FindStringSubmatch(line); pm != nil && pm[1] != "." {
				u.dir = filepath.Clean(pm[1])
			}
			out = append(out, u)
		}
	}
	return out
}

// fuzzTargets lists the Fuzz functions of dir's test files in a build with
// tags (each package and tag set parsed once).
func fuzzTargets(dir string, tags []string) ([]string, error) {
	key := dir + "|" + strings.Join(tags, ",")
	if c, ok := targetCache[key]; ok {
		return c.names, c.err
	}
	names, err := parseFuzzTargets(dir, tags)
	targetCache[key] = cachedTargets{names, err}
	return names, err
}

type cachedTargets struct {
	names []string
	err   error
}

var targetCache = map[string]cachedTargets{}

func parseFuzzTargets(dir string, tags []string) ([]string, error) {
	ctx := build.Default
	ctx.BuildTags = tags
	pkg, err := ctx.ImportDir(filepath.Join(root, dir), 0)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range append(pkg.TestGoFiles, pkg.XTestGoFiles...) {
		af, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, dir, f), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Fuzz") {
				names = append(names, fd.Name.Name)
			}
		}
	}
	return names, nil
}

// checkFuzzUse requires an anchored pattern that matches exactly one fuzz
// target: go test -fuzz refuses a pattern that matches several.
func checkFuzzUse(u fuzzUse) error {
	if !strings.HasPrefix(u.pattern, "^") || !strings.HasSuffix(u.pattern, "$") {
		return fmt.Errorf("%s: -fuzz=%s is not anchored (write -fuzz='^%s$')", u.where, u.pattern, strings.Trim(u.pattern, "^$"))
	}
	re, err := regexp.Compile(u.pattern)
	if err != nil {
		return fmt.Errorf("%s: -fuzz=%s: %v", u.where, u.pattern, err)
	}
	names, err := fuzzTargets(u.dir, u.tags)
	if err != nil {
		return fmt.Errorf("%s: the package %s: %v", u.where, u.dir, err)
	}
	var hit []string
	for _, n := range names {
		if re.MatchString(n) {
			hit = append(hit, n)
		}
	}
	if len(hit) != 1 {
		return fmt.Errorf("%s: -fuzz=%s matches %d fuzz targets of %s with tags %v: %v", u.where, u.pattern, len(hit), u.dir, u.tags, hit)
	}
	return nil
}

// docFiles calls f with every .md and .go file of the repository (but
// testdata and this file) that holds marker, relative to root.
func docFiles(t *testing.T, marker string, f func(rel, text string)) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || (!strings.HasSuffix(path, ".md") && !strings.HasSuffix(path, ".go")) || strings.HasSuffix(path, "readme_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Contains(b, []byte(marker)) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		f(rel, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFuzzLinesNameOneTarget(t *testing.T) {
	var uses []fuzzUse
	docFiles(t, "-fuzz=", func(rel, text string) { uses = append(uses, fuzzUses(rel, text)...) })
	if len(uses) < 2 {
		t.Fatalf("found %d -fuzz= uses, want at least the README's two", len(uses))
	}
	for _, u := range uses {
		if err := checkFuzzUse(u); err != nil {
			t.Error(err)
		}
	}
	t.Logf("%d -fuzz= uses checked", len(uses))
}

// unanchoredRunRE finds a go test -run whose pattern starts with a test's
// name and no ^: it runs every test whose name has that one inside it.
var unanchoredRunRE = regexp.MustCompile(`-run[ =]'?"?(Test|Example|Benchmark)\w*`)

// unanchoredRuns returns the -run patterns of text that name tests without
// anchoring them, as "path:line: match".
func unanchoredRuns(rel, text string) []string {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		if strings.HasSuffix(rel, ".go") && !strings.HasPrefix(strings.TrimSpace(line), "//") {
			continue // code builds its own patterns; comments are what people paste
		}
		for _, m := range unanchoredRunRE.FindAllString(line, -1) {
			out = append(out, fmt.Sprintf("%s:%d: %s", rel, i+1, m))
		}
	}
	return out
}

func TestRunNamesAnchored(t *testing.T) {
	docFiles(t, "-run", func(rel, text string) {
		if filepath.Base(rel) == "RESULTS.md" {
			return // a record of the commands that were run, as they were run
		}
		for _, u := range unanchoredRuns(rel, text) {
			t.Errorf("%s: anchor the name (-run '^Name$', or '^Prefix' for a family)", u)
		}
	})
}

func TestRunCheckCatchesAnUnanchoredName(t *testing.T) {
	bad := "go test -run TestKillMatrix ./lfq/\ngo test -run 'TestExploreRing/owner' ./lfq/\n"
	good := "go test -run '^TestKillMatrix$' ./lfq/\ngo test -run '^TestStress' ./lfq/\ngo test -run '^$' -fuzz='^FuzzRing$' ./fuzz/\n"
	if got := unanchoredRuns("README.md", bad); len(got) != 2 {
		t.Errorf("two unanchored names, %d reported: %v", len(got), got)
	}
	if got := unanchoredRuns("README.md", good); len(got) != 0 {
		t.Errorf("anchored names reported: %v", got)
	}
}

func TestFuzzCheckCatchesAnUnanchoredOrWrongName(t *testing.T) {
	for _, line := range []string{
		"go test -run '^$' -fuzz=FuzzRing -fuzztime=5m ./fuzz/",           // unanchored
		"go test -run '^$' -fuzz='^FuzzRing' -fuzztime=5m ./fuzz/",        // two targets
		"go test -tags schedcheck -run '^$' -fuzz='^FuzzNoSuch$' ./fuzz/", // none
	} {
		uses := fuzzUses("README.md", line)
		if len(uses) != 1 {
			t.Fatalf("%q: %d uses", line, len(uses))
		}
		if err := checkFuzzUse(uses[0]); err == nil {
			t.Errorf("%q passed", line)
		} else {
			t.Logf("caught: %v", err)
		}
	}
	if err := checkFuzzUse(fuzzUses("README.md", "go test -tags schedcheck -run '^$' -fuzz='^FuzzRingInterleaved$' ./fuzz/")[0]); err != nil {
		t.Errorf("a good line failed: %v", err)
	}
}

// ---- the replay ----

// replayClaim is what the README's replay block says: the command that
// explores, the command that replays, and the comment lines between them.
type replayClaim struct {
	explore, replay   string // command lines, comments stripped
	schedule, key     string // "0x7.1x15.0x5 (27 steps)", the SCHEDKIT_REPLAY value
	message           string // the failure's text before its "..."
	traceSteps        []string
	printedReplayLine string // what the explorer prints as the command to replay in the package directory
}

var (
	scheduleRE = regexp.MustCompile(`(?m)^#\s+schedule: (.+)$`)
	replayRE   = regexp.MustCompile(`(?m)^#\s+replay: SCHEDKIT_REPLAY='([^']+)'$`)
	failedRE   = regexp.MustCompile(`(?m)^#\s+explore \S+: execution \d+ failed: (.*?)(?: \.\.\.)?$`)
	traceRE    = regexp.MustCompile(`(?m)^#\s+trace:\s+(.*)$`)
)

func parseReplayClaim(readme string) (replayClaim, error) {
	var c replayClaim
	loc := replayRE.FindStringIndex(readme)
	if loc == nil {
		return c, errors.New("README.md has no replay comment line (#   replay: SCHEDKIT_REPLAY='...')")
	}
	i := loc[0]
	start := strings.LastIndex(readme[:i], "```sh\n")
	end := strings.Index(readme[i:], "```")
	if start < 0 || end < 0 {
		return c, errors.New("the replay is not in a sh block")
	}
	block := readme[start+len("```sh\n") : i+end]
	for _, line := range strings.Split(block, "\n") {
		cmd := strings.TrimSpace(stripComment(line))
		switch {
		case cmd == "":
		case strings.Contains(cmd, "SCHEDKIT_REPLAY="):
			c.replay = cmd
		case strings.Contains(cmd, "go test"):
			c.explore = cmd
		}
	}
	if m := scheduleRE.FindStringSubmatch(block); m != nil {
		c.schedule = m[1]
	}
	if m := replayRE.FindStringSubmatch(block); m != nil {
		c.key = m[1]
	}
	if m := failedRE.FindStringSubmatch(block); m != nil {
		c.message = strings.TrimSuffix(m[1], ":")
	}
	if m := traceRE.FindStringSubmatch(block); m != nil {
		for _, step := range strings.Split(m[1], "...") {
			if step = strings.TrimSpace(step); step != "" {
				c.traceSteps = append(c.traceSteps, step)
			}
		}
	}
	if c.explore == "" || c.replay == "" || c.schedule == "" || c.key == "" || c.message == "" || len(c.traceSteps) == 0 {
		return c, fmt.Errorf("the replay block lacks a part (explore %q, replay %q, schedule %q, key %q, message %q, trace %q):\n%s",
			c.explore, c.replay, c.schedule, c.key, c.message, c.traceSteps, block)
	}
	if !strings.Contains(c.replay, "SCHEDKIT_REPLAY='"+c.key+"'") {
		return c, fmt.Errorf("the replay command %q does not replay the key the comments show, %q", c.replay, c.key)
	}
	if cd, rest, ok := strings.Cut(c.replay, " && "); ok && strings.HasPrefix(cd, "cd ") {
		c.printedReplayLine = rest
	}
	return c, nil
}

// stripComment drops a trailing # comment outside quotes.
func stripComment(line string) string {
	var q rune
	for i, r := range line {
		switch {
		case q != 0:
			if r == q {
				q = 0
			}
		case r == '\'' || r == '"':
			q = r
		case r == '#' && (i == 0 || line[i-1] == ' '):
			return line[:i]
		}
	}
	return line
}

// judgeReplay decides from a replay's exit and output whether it
// reproduced the claimed failure in one execution.
func judgeReplay(c replayClaim, exitErr error, out string) error {
	var errs []error
	if exitErr == nil {
		errs = append(errs, errors.New("it passed: the replay did not reach the failure"))
	}
	if strings.Contains(out, "diverged") {
		errs = append(errs, errors.New("the explorer says the replay diverged from its schedule"))
	}
	for _, want := range []string{"1 executions", "replayed", "failed: " + c.message, "schedule: " + c.schedule} {
		if !strings.Contains(out, want) {
			errs = append(errs, fmt.Errorf("the output lacks %q", want))
		}
	}
	for _, step := range c.traceSteps {
		// A step's words in order, whatever the padding between them (the
		// trace aligns each step's file:line in a column).
		words := strings.Fields(step)
		for i, w := range words {
			words[i] = regexp.QuoteMeta(w)
		}
		if !regexp.MustCompile(`(?m)^\s*` + strings.Join(words, `\s+`) + `$`).MatchString(out) {
			errs = append(errs, fmt.Errorf("the trace lacks the step %q", step))
		}
	}
	return errors.Join(errs...)
}

// judgeExplore decides whether the exploring command still finds the
// failure the README shows and prints the README's replay line.
func judgeExplore(c replayClaim, exitErr error, out string) error {
	var errs []error
	if exitErr == nil {
		errs = append(errs, errors.New("it passed: the seeded fault is no longer found"))
	}
	for _, want := range []string{"failed: " + c.message, "schedule: " + c.schedule, "replay: SCHEDKIT_REPLAY='" + c.key + "'", "in the package directory: " + c.printedReplayLine} {
		if !strings.Contains(out, want) {
			errs = append(errs, fmt.Errorf("the output lacks %q: the README is stale", want))
		}
	}
	return errors.Join(errs...)
}

// runShell runs a README command line with bash in the repository root,
// in an environment without the SCHEDKIT_ settings of the test's own run.
func runShell(t *testing.T, line string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = root
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SCHEDKIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s: %v, %s", line, err, time.Since(start).Round(10*time.Millisecond))
	return out.String(), err
}

func TestReplayReproducesTheFailure(t *testing.T) {
	c, err := parseReplayClaim(readREADME(t))
	if err != nil {
		t.Fatal(err)
	}
	// The replay's own check covers the claim (schedule, message, trace);
	// the exploring command, which also must print the README's replay
	// line, adds about 4 s and waits for the full run.
	if !testing.Short() {
		out, exitErr := runShell(t, c.explore)
		if err := judgeExplore(c, exitErr, out); err != nil {
			t.Errorf("README's exploring command: %s\n%v", c.explore, err)
		}
	}
	out, exitErr := runShell(t, c.replay)
	if err := judgeReplay(c, exitErr, out); err != nil {
		t.Errorf("README's replay command: %s\n%v\noutput:\n%s", c.replay, err, out)
	}
}

func TestReplayJudgeCatchesAStaleReplay(t *testing.T) {
	c, err := parseReplayClaim(readREADME(t))
	if err != nil {
		t.Fatal(err)
	}
	exitErr := errors.New("exit status 1")
	passed := "ok  \tgithub.com/schedkit/schedkit/lfq\t0.1s\n"
	if judgeReplay(c, nil, passed) == nil {
		t.Error("a replay that passed was accepted")
	}
	diverged := "explore x: 1 executions, 1 schedules, replayed\nexecution 1 failed: replay diverged from its schedule: the schedule ends after 27 steps\n"
	if judgeReplay(c, exitErr, diverged) == nil {
		t.Error("a replay that diverged was accepted")
	}
	other := "explore x: 1 executions, 1 schedules, replayed\nexecution 1 failed: " + c.message + "\nschedule: 0.1 (2 steps)\n"
	if judgeReplay(c, exitErr, other) == nil {
		t.Error("a replay of another schedule was accepted")
	}
	if judgeExplore(c, exitErr, other) == nil {
		t.Error("an exploration printing another replay line was accepted")
	}
}

// ---- links ----

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	slugDrop  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// slug is GitHub's anchor for a heading: lower case, punctuation dropped,
// spaces to hyphens.
func slug(h string) string {
	return strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(h), ""), " ", "-")
}

// fenceRE matches a fenced code block.
var fenceRE = regexp.MustCompile("(?s)```.*?```")

// checkLinks checks that each relative link of a markdown file (at path,
// relative to root) names a file that exists and, for a #fragment into a
// markdown file, one of its headings.
func checkLinks(path, text string, read func(string) (string, error)) error {
	var errs []error
	// Code is not markdown: taskchan.Make[int](0) in a Go block is no link.
	for _, m := range linkRE.FindAllStringSubmatch(fenceRE.ReplaceAllString(text, ""), -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		file, frag, _ := strings.Cut(target, "#")
		body := text
		if file != "" {
			file = filepath.Join(filepath.Dir(path), file)
			b, err := read(file)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: link %s: %v", path, target, err))
				continue
			}
			body = b
		}
		if frag == "" || (file != "" && !strings.HasSuffix(file, ".md")) {
			continue
		}
		found := false
		for _, h := range headingRE.FindAllStringSubmatch(body, -1) {
			if slug(h[1]) == frag {
				found = true
				break
			}
		}
		if !found {
			errs = append(errs, fmt.Errorf("%s: link %s: no heading with that anchor", path, target))
		}
	}
	return errors.Join(errs...)
}

func readRel(rel string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		var st os.FileInfo
		if st, err = os.Stat(filepath.Join(root, rel)); err == nil && st.IsDir() {
			return "", nil
		}
		return "", err
	}
	return string(b), nil
}

func TestLinksResolve(t *testing.T) {
	for _, path := range []string{"README.md", "docs/DESIGN.md"} {
		text, err := readRel(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkLinks(path, text, readRel); err != nil {
			t.Error(err)
		}
	}
}

func TestLinkCheckCatchesABrokenLink(t *testing.T) {
	text := "# Top\n[a](#top) [b](#nowhere) [c](docs/NoSuch.md) [d](bench/RESULTS.md#no-such-section)\n" +
		"```go\nc := taskchan.Make[int](0)\n```\n[e](#after-a-fence)\n"
	err := checkLinks("README.md", text, readRel)
	if err == nil {
		t.Fatal("broken links passed")
	}
	for _, want := range []string{"#nowhere", "docs/NoSuch.md", "#no-such-section", "#after-a-fence"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the broken link %s was not reported: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "(#top)") || strings.Contains(err.Error(), "link #top:") || strings.Contains(err.Error(), "link 0:") {
		t.Errorf("a good link was reported: %v", err)
	}
}

// ---- the two commands ----

// ciCommands returns the commands .ci/run runs: its lines that are not
// comments, shell settings or a cd.
func ciCommands(script string) []string {
	var out []string
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "set ") || strings.HasPrefix(line, "cd ") {
			continue
		}
		out = append(out, line)
	}
	return out
}

// checkTwoCommands requires the README's "The two commands" block to hold
// the main job (go run ./cmd/schedkit verify) and every command .ci/run
// runs, each at the start of a line.
func checkTwoCommands(readme, ci string) error {
	i := strings.Index(readme, "## The two commands")
	if i < 0 {
		return errors.New(`README.md has no "The two commands" section`)
	}
	start := strings.Index(readme[i:], "```sh\n")
	if start < 0 {
		return errors.New(`"The two commands" has no sh block`)
	}
	block := readme[i+start+len("```sh\n"):]
	block = block[:strings.Index(block, "```")]
	var errs []error
	want := append([]string{"go run ./cmd/schedkit verify"}, ciCommands(ci)...)
	if len(want) < 2 {
		errs = append(errs, errors.New(".ci/run runs no command"))
	}
	for _, w := range want {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(w) + `(\s|$)`).MatchString(block) {
			errs = append(errs, fmt.Errorf("the README's two commands lack %q:\n%s", w, block))
		}
	}
	return errors.Join(errs...)
}

func TestTwoCommandsAreCIs(t *testing.T) {
	ci, err := readRel(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkTwoCommands(readREADME(t), ci); err != nil {
		t.Error(err)
	}
	if err := checkTwoCommands(readREADME(t), "#!/bin/sh\ncd x\n./scripts/other.sh\n"); err == nil {
		t.Error("a CI command the README does not show passed")
	}
}
