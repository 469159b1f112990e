package tlc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The pinned release: the TLA+ tools v1.8.0, whose tla2tools.jar is TLC 2.18
// or later (the release's asset is rebuilt in place, so the version line is
// checked for at least MinVersion rather than for one build).
const (
	PinnedRelease = "v1.8.0"
	DefaultJarURL = "https://github.com/tlaplus/tlaplus/releases/download/" + PinnedRelease + "/tla2tools.jar"
	MinVersion    = "2.18"
)

// URLEnv overrides the URL Installer downloads from (a mirror, or a test's
// server).
const URLEnv = "SCHEDKIT_TLA2TOOLS_URL"

// maxJarBytes bounds a download: the real jar is about 4 MB.
const maxJarBytes = 256 << 20

// Installer downloads tla2tools.jar to where FindJar looks without
// TLA2TOOLS_JAR (~/.cache/tla/tla2tools.jar). The jar is written to a
// temporary file in the same directory and renamed into place only after
// it ran and printed a TLC version of at least MinVersion, so a failed or
// partial download never replaces a working jar.
type Installer struct {
	URL    string       // http(s), file:// or a local path; "" means $SCHEDKIT_TLA2TOOLS_URL, else DefaultJarURL
	Dir    string       // "" means ~/.cache/tla
	Client *http.Client // nil means a client with a 5-minute timeout
	// Version runs the downloaded jar and returns TLC's output, in which the
	// version line must appear. nil means RunVersion.
	Version func(ctx context.Context, jar string) (string, error)
}

// Installed is what Install did.
type Installed struct {
	Path    string // where the jar now is
	URL     string // where it came from
	Version string // TLC's version line
	Bytes   int64
}

// Install downloads, checks and installs the jar. Every error is one line
// that ends by saying what to do without a download.
func (in Installer) Install(ctx context.Context) (Installed, error) {
	url := in.URL
	if url == "" {
		url = os.Getenv(URLEnv)
	}
	if url == "" {
		url = DefaultJarURL
	}
	dir := in.Dir
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return Installed{}, installErr("~/.cache/tla/tla2tools.jar", "no home directory: %v", err)
		}
		dir = filepath.Join(home, ".cache", "tla")
	}
	dest := filepath.Join(dir, "tla2tools.jar")
	res := Installed{Path: dest, URL: url}

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, installErr(dest, "%v", err)
	}
	tmp, err := os.CreateTemp(dir, ".tla2tools-*.jar.part")
	if err != nil {
		return res, installErr(dest, "%v", err)
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	res.Bytes, err = download(ctx, in.Client, url, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		verb := "downloading"
		if _, local := localPath(url); local {
			verb = "copying"
		}
		return res, installErr(dest, "%s %s: %v", verb, url, err)
	}

	version := in.Version
	if version == nil {
		version = RunVersion
	}
	out, err := version(ctx, tmp.Name())
	line, major, minor, found := ParseVersion(out)
	switch {
	case !found && err != nil:
		return res, installErr(dest, "the jar from %s did not run: %v", url, err)
	case !found:
		return res, installErr(dest, "the jar from %s printed no TLC version line (got %q)", url, firstLineOf(out))
	case !versionAtLeast(major, minor, MinVersion):
		return res, installErr(dest, "the jar from %s is %q, want TLC %s or later", url, line, MinVersion)
	}
	res.Version = line
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return res, installErr(dest, "%v", err)
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return res, installErr(dest, "%v", err)
	}
	return res, nil
}

// installErr is Install's one-line error: what failed, then what to do.
func installErr(dest, format string, args ...any) error {
	msg := strings.Join(strings.Fields(fmt.Sprintf(format, args...)), " ")
	return fmt.Errorf("tlc -install: %s; without a download, copy tla2tools.jar (TLC %s or later, %s) to %s by hand, or set %s to its path",
		msg, MinVersion, DefaultJarURL, dest, JarEnv)
}

// localPath returns the file a URL names when it is a local one: a
// file:// URL, or a path (anything without "://").
func localPath(url string) (string, bool) {
	if p, ok := strings.CutPrefix(url, "file://"); ok {
		return p, true
	}
	return url, !strings.Contains(url, "://")
}

// download copies the jar at url, an http(s) URL, a file:// URL or a local
// path, to w.
func download(ctx context.Context, client *http.Client, url string, w io.Writer) (int64, error) {
	var body io.Reader
	if p, ok := localPath(url); ok {
		f, err := os.Open(p)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
			return 0, fmt.Errorf("%s is not a file", p)
		}
		body = f
	} else {
		if client == nil {
			client = &http.Client{Timeout: 5 * time.Minute}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return 0, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("HTTP %s", resp.Status)
		}
		body = resp.Body
	}
	n, err := io.Copy(w, io.LimitReader(body, maxJarBytes+1))
	switch {
	case err != nil:
		return n, err
	case n > maxJarBytes:
		return n, fmt.Errorf("more than %d bytes: not tla2tools.jar", maxJarBytes)
	case n == 0:
		return n, errors.New("empty body")
	}
	return n, nil
}

// RunVersion runs `java -cp jar tlc2.TLC -version` and returns its output.
// TLC prints its version line first and then, not knowing the flag, exits
// non-zero, so the exit code says nothing; the output is what counts.
func RunVersion(ctx context.Context, jar string) (string, error) {
	java, err := FindJava()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, java, "-cp", jar, "tlc2.TLC", "-version")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

var versionRE = regexp.MustCompile(`(?m)^TLC2 Version (\d+)\.(\d+)\b.*$`)

// ParseVersion finds TLC's version line ("TLC2 Version 2.18 of ...") in
// out and returns it with its major and minor numbers.
func ParseVersion(out string) (line string, major, minor int, ok bool) {
	m := versionRE.FindStringSubmatch(out)
	if m == nil {
		return "", 0, 0, false
	}
	major, err1 := strconv.Atoi(m[1])
	minor, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil {
		return "", 0, 0, false
	}
	return strings.TrimSpace(m[0]), major, minor, true
}

// versionAtLeast reports whether major.minor is at least min ("2.18").
func versionAtLeast(major, minor int, min string) bool {
	a, b, _ := strings.Cut(min, ".")
	wantMajor, _ := strconv.Atoi(a)
	wantMinor, _ := strconv.Atoi(b)
	return major > wantMajor || major == wantMajor && minor >= wantMinor
}

func firstLineOf(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(l) > 100 {
		l = l[:100] + "…"
	}
	return l
}
