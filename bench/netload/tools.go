package netload

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Packages are the Debian packages the load tools come in, by command.
var Packages = map[string]string{
	"wrk":             "wrk",
	"ab":              "apache2-utils",
	"redis-benchmark": "redis-tools",
	"redis-cli":       "redis-tools",
	"redis-server":    "redis-server",
}

// A Tool is a load tool found on this machine or fetched.
type Tool struct {
	Name    string
	Path    string
	Env     []string // added to the environment (LD_LIBRARY_PATH for a fetched one)
	Version string   // what its version flag printed, first line
	From    string   // "PATH", or where it was unpacked from
}

// Command is the tool run with args.
func (t *Tool) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, t.Path, args...)
	cmd.Env = append(os.Environ(), t.Env...)
	return cmd
}

// DefaultCache is where fetched tools are unpacked: $XDG_CACHE_HOME or
// ~/.cache, then schedkit/tools.
func DefaultCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "schedkit", "tools")
}

// Find looks for the tool name: in PATH, then in cache (unpacked by an
// earlier fetch), then, if fetch is set, it downloads its Debian package
// and the library packages it needs that are not installed with apt-get
// download (no root needed), unpacks them with dpkg -x into cache and
// runs the binary from there with LD_LIBRARY_PATH. The error says plainly
// why the tool is not there.
func Find(name, cache string, fetch bool) (*Tool, error) {
	pkg, ok := Packages[name]
	if !ok {
		return nil, fmt.Errorf("%s: not a tool this bench knows", name)
	}
	if p, err := exec.LookPath(name); err == nil {
		return version(&Tool{Name: name, Path: p, From: "PATH"})
	}
	root := filepath.Join(cache, "root")
	if t, err := unpacked(name, root); err == nil {
		return t, nil
	}
	if !fetch {
		return nil, fmt.Errorf("%s: not in PATH nor in %s, and fetching is off (Debian package %s)", name, root, pkg)
	}
	if err := fetchDeb(pkg, cache); err != nil {
		return nil, fmt.Errorf("%s: not in PATH, and fetching Debian package %s failed: %w", name, pkg, err)
	}
	t, err := unpacked(name, root)
	if err != nil {
		return nil, fmt.Errorf("%s: fetched Debian package %s into %s, but %w", name, pkg, root, err)
	}
	return t, nil
}

// unpacked is the tool under root (a dpkg -x tree), if it runs.
func unpacked(name, root string) (*Tool, error) {
	p := filepath.Join(root, "usr", "bin", name)
	if _, err := os.Stat(p); err != nil {
		return nil, fmt.Errorf("%s is not there", p)
	}
	var libs []string
	for _, pat := range []string{"usr/lib/*-linux-gnu", "lib/*-linux-gnu", "usr/lib"} {
		m, _ := filepath.Glob(filepath.Join(root, pat))
		libs = append(libs, m...)
	}
	if old := os.Getenv("LD_LIBRARY_PATH"); old != "" {
		libs = append(libs, old)
	}
	return version(&Tool{Name: name, Path: p, Env: []string{"LD_LIBRARY_PATH=" + strings.Join(libs, ":")}, From: root})
}

// versionArgs is the flag that makes each tool say its version.
var versionArgs = map[string][]string{
	"wrk": {"-v"}, "ab": {"-V"}, "redis-benchmark": {"--version"}, "redis-cli": {"--version"}, "redis-server": {"--version"},
}

// version runs the tool's version flag: a tool that cannot start (a
// library missing) is no tool. wrk -v exits 1 after printing its version.
func version(t *Tool) (*Tool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := t.Command(ctx, versionArgs[t.Name]...).CombinedOutput()
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1 && line != "" && !strings.Contains(line, "error while loading")) {
		return nil, fmt.Errorf("%s does not run: %v: %s", t.Path, err, strings.TrimSpace(string(out)))
	}
	if strings.Contains(line, "error while loading") {
		return nil, fmt.Errorf("%s does not run: %s", t.Path, line)
	}
	t.Version = line
	return t, nil
}

// fetchDeb downloads pkg and, transitively, the packages it depends on that
// dpkg does not list as installed (the first of each set of alternatives),
// into cache/debs, and unpacks each into cache/root.
func fetchDeb(pkg, cache string) error {
	debs := filepath.Join(cache, "debs")
	root := filepath.Join(cache, "root")
	if err := os.MkdirAll(debs, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	seen := map[string]bool{}
	queue := []string{pkg}
	for len(queue) > 0 && len(seen) < 40 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		file, err := download(p, debs)
		if err != nil {
			if p == pkg {
				return err
			}
			continue // a dependency that is not a real package (a virtual one): ldd will say if it mattered
		}
		out, err := exec.Command("dpkg-deb", "-f", file, "Depends").Output()
		if err != nil {
			return fmt.Errorf("dpkg-deb -f %s Depends: %v", file, err)
		}
		for _, d := range parseDepends(string(out)) {
			if !seen[d] && !installed(d) {
				queue = append(queue, d)
			}
		}
		if out, err := exec.Command("dpkg", "-x", file, root).CombinedOutput(); err != nil {
			return fmt.Errorf("dpkg -x %s: %v: %s", file, err, out)
		}
	}
	return nil
}

// download is apt-get download pkg into dir; it returns the .deb's path.
func download(pkg, dir string) (string, error) {
	if m, _ := filepath.Glob(filepath.Join(dir, pkg+"_*.deb")); len(m) > 0 {
		return m[0], nil
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return "", errors.New("no apt-get here (not a Debian system?)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "apt-get", "download", "-q", pkg)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("apt-get download %s: %v: %s", pkg, err, lastLine(out))
	}
	m, _ := filepath.Glob(filepath.Join(dir, pkg+"_*.deb"))
	if len(m) == 0 {
		return "", fmt.Errorf("apt-get download %s left no %s_*.deb", pkg, pkg)
	}
	return m[0], nil
}

// parseDepends turns a Depends field into package names, the first of
// each set of alternatives, versions and architectures dropped.
func parseDepends(field string) []string {
	var pkgs []string
	for dep := range strings.SplitSeq(field, ",") {
		first, _, _ := strings.Cut(dep, "|")
		name, _, _ := strings.Cut(strings.TrimSpace(first), " ")
		name, _, _ = strings.Cut(name, ":")
		if name = strings.TrimSpace(name); name != "" {
			pkgs = append(pkgs, name)
		}
	}
	return pkgs
}

// installed says whether dpkg lists pkg as installed.
func installed(pkg string) bool {
	out, err := exec.Command("dpkg-query", "-W", "-f", "${db:Status-Abbrev}", pkg).Output()
	return err == nil && strings.HasPrefix(string(out), "ii")
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// A ToolResult is one tool run's figures.
type ToolResult struct {
	ReqPerSec float64
	P99       time.Duration
	Errors    string // what the tool counted as failed; empty when none
}

var (
	wrkRate    = regexp.MustCompile(`(?m)^Requests/sec:\s+([0-9.]+)`)
	wrkP99     = regexp.MustCompile(`(?m)^\s+99%\s+([0-9.]+)(us|ms|s)\s*$`)
	wrkErrors  = regexp.MustCompile(`(?m)^\s+(Socket errors:.*|Non-2xx or 3xx responses:.*)$`)
	abRate     = regexp.MustCompile(`(?m)^Requests per second:\s+([0-9.]+)`)
	abP99      = regexp.MustCompile(`(?m)^\s+99%\s+([0-9]+)\s*$`)
	abFailed   = regexp.MustCompile(`(?m)^Failed requests:\s+([0-9]+)`)
	abNon2xx   = regexp.MustCompile(`(?m)^Non-2xx responses:\s+([0-9]+)`)
	abComplete = regexp.MustCompile(`(?m)^Complete requests:\s+([0-9]+)`)
)

// ParseWrk reads wrk --latency's report.
func ParseWrk(out string) (ToolResult, error) {
	var r ToolResult
	m := wrkRate.FindStringSubmatch(out)
	if m == nil {
		return r, errors.New("wrk: no Requests/sec line in its report")
	}
	r.ReqPerSec, _ = strconv.ParseFloat(m[1], 64)
	m = wrkP99.FindStringSubmatch(out)
	if m == nil {
		return r, errors.New("wrk: no 99% line in its latency distribution (was --latency given?)")
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	unit := map[string]float64{"us": 1e3, "ms": 1e6, "s": 1e9}[m[2]]
	r.P99 = time.Duration(v * unit)
	var errs []string
	for _, e := range wrkErrors.FindAllStringSubmatch(out, -1) {
		errs = append(errs, strings.TrimSpace(e[1]))
	}
	r.Errors = strings.Join(errs, "; ")
	return r, nil
}

// ParseAB reads ab's report (its percentiles are whole milliseconds).
func ParseAB(out string) (ToolResult, error) {
	var r ToolResult
	m := abRate.FindStringSubmatch(out)
	if m == nil {
		return r, errors.New("ab: no Requests per second line in its report")
	}
	r.ReqPerSec, _ = strconv.ParseFloat(m[1], 64)
	m = abP99.FindStringSubmatch(out)
	if m == nil {
		return r, errors.New("ab: no 99% line in its percentiles")
	}
	ms, _ := strconv.Atoi(m[1])
	r.P99 = time.Duration(ms) * time.Millisecond
	var errs []string
	if m := abFailed.FindStringSubmatch(out); m != nil && m[1] != "0" {
		errs = append(errs, "failed requests: "+m[1])
	}
	if m := abNon2xx.FindStringSubmatch(out); m != nil && m[1] != "0" {
		errs = append(errs, "non-2xx responses: "+m[1])
	}
	if abComplete.FindStringSubmatch(out) == nil {
		errs = append(errs, "no Complete requests line")
	}
	r.Errors = strings.Join(errs, "; ")
	return r, nil
}

// ParseRedisBenchmark reads redis-benchmark --csv's lines (Redis 7: test,
// rps, avg, min, p50, p95, p99 and max latency in ms) into a result per
// test (PING_INLINE, PING_MBULK, SET, GET, INCR...).
func ParseRedisBenchmark(out string) (map[string]ToolResult, error) {
	rd := csv.NewReader(strings.NewReader(out))
	rd.FieldsPerRecord = -1
	var head []string
	res := map[string]ToolResult{}
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("redis-benchmark --csv: %v", err)
		}
		if len(rec) > 0 && rec[0] == "test" {
			head = rec
			continue
		}
		if head == nil || len(rec) != len(head) {
			continue // a warning line before the header
		}
		var r ToolResult
		for i, h := range head {
			v, _ := strconv.ParseFloat(rec[i], 64)
			switch h {
			case "rps":
				r.ReqPerSec = v
			case "p99_latency_ms":
				r.P99 = time.Duration(v * 1e6)
			}
		}
		res[rec[0]] = r
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("redis-benchmark --csv: no result lines in %q", firstLines(out, 5))
	}
	return res, nil
}

func firstLines(s string, n int) string {
	sc := bufio.NewScanner(bytes.NewReader([]byte(s)))
	var lines []string
	for sc.Scan() && len(lines) < n {
		lines = append(lines, sc.Text())
	}
	return strings.Join(lines, "\n")
}
