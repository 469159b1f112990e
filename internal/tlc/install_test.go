package tlc

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func isNoTLC(err error) bool { return errors.Is(err, ErrNoJar) || errors.Is(err, ErrNoJava) }

func TestParseVersion(t *testing.T) {
	line, major, minor, ok := ParseVersion("TLC2 Version 2.18 of Day Month 20?? (rev: 6d9e496)\nError: Error: unrecognized option: -version\n")
	assert.True(t, ok)
	assert.Equal(t, "TLC2 Version 2.18 of Day Month 20?? (rev: 6d9e496)", line)
	assert.Equal(t, []int{2, 18}, []int{major, minor})

	_, major, minor, ok = ParseVersion("Picked up JAVA_TOOL_OPTIONS\nTLC2 Version 2.19 of 08 August 2024 (rev: 5a47802)\n")
	assert.True(t, ok, "the line need not be first")
	assert.Equal(t, []int{2, 19}, []int{major, minor})

	for _, bad := range []string{"", "Error: Could not find or load main class tlc2.TLC\n", "TLC Version 2.18\n", "TLC2 Version two\n"} {
		_, _, _, ok := ParseVersion(bad)
		assert.False(t, ok, bad)
	}
	assert.True(t, versionAtLeast(2, 18, "2.18"))
	assert.True(t, versionAtLeast(2, 19, "2.18"))
	assert.True(t, versionAtLeast(3, 0, "2.18"))
	assert.False(t, versionAtLeast(2, 17, "2.18"))
	assert.False(t, versionAtLeast(1, 99, "2.18"))
}

// jarServer serves body at /tla2tools.jar and counts requests.
func jarServer(t *testing.T, body []byte) (url string, hits *int) {
	t.Helper()
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if r.URL.Path != "/tla2tools.jar" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/tla2tools.jar", &n
}

// fakeVersion stands for running the jar: it checks that the jar it is
// given holds what was served and "prints" out.
func fakeVersion(t *testing.T, want []byte, out string, err error) func(context.Context, string) (string, error) {
	return func(_ context.Context, jar string) (string, error) {
		got, rerr := os.ReadFile(jar)
		require.NoError(t, rerr)
		assert.Equal(t, want, got, "the jar run is the downloaded one")
		assert.NotEqual(t, "tla2tools.jar", filepath.Base(jar), "the jar runs before it is renamed into place")
		return out, err
	}
}

// oneLine asserts err is one line that says what to do without a download.
func oneLine(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "\n")
	assert.Contains(t, err.Error(), "copy tla2tools.jar")
	assert.Contains(t, err.Error(), JarEnv)
}

// leftovers lists what is in dir: no temporary file may stay behind.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestInstallRenamesOnlyAfterTheVersionCheck(t *testing.T) {
	body := []byte("PK\x03\x04 a jar")
	url, hits := jarServer(t, body)
	dir := filepath.Join(t.TempDir(), "cache", "tla") // created by Install

	in := Installer{URL: url, Dir: dir, Version: fakeVersion(t, body, "TLC2 Version 2.18 of Day Month 20?? (rev: x)\nError: unrecognized option\n", errors.New("exit status 1"))}
	got, err := in.Install(context.Background())
	require.NoError(t, err, "TLC's exit code after -version says nothing: the version line counts")
	assert.Equal(t, 1, *hits)
	assert.Equal(t, filepath.Join(dir, "tla2tools.jar"), got.Path)
	assert.Equal(t, "TLC2 Version 2.18 of Day Month 20?? (rev: x)", got.Version)
	assert.Equal(t, int64(len(body)), got.Bytes)
	b, err := os.ReadFile(got.Path)
	require.NoError(t, err)
	assert.Equal(t, body, b)
	assert.Equal(t, []string{"tla2tools.jar"}, leftovers(t, dir))

	// A later install that fails its check leaves the working jar alone.
	for name, v := range map[string]func(context.Context, string) (string, error){
		"too old":        fakeVersion(t, body, "TLC2 Version 2.17 of 2023\n", nil),
		"no version":     fakeVersion(t, body, "Error: Could not find or load main class tlc2.TLC\n", errors.New("exit status 1")),
		"did not run":    fakeVersion(t, body, "", errors.New("exec: java: not found")),
		"silent success": fakeVersion(t, body, "", nil),
	} {
		_, err := Installer{URL: url, Dir: dir, Version: v}.Install(context.Background())
		oneLine(t, err)
		assert.Equal(t, []string{"tla2tools.jar"}, leftovers(t, dir), name)
		b, _ := os.ReadFile(got.Path)
		assert.Equal(t, body, b, name)
	}
}

func TestInstallFailsInOneLine(t *testing.T) {
	body := []byte("PK\x03\x04 a jar")
	url, _ := jarServer(t, body)
	never := func(context.Context, string) (string, error) {
		t.Error("a failed download is never run")
		return "", nil
	}

	// No network: a local port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + l.Addr().String() + "/tla2tools.jar"
	require.NoError(t, l.Close())

	for name, u := range map[string]string{
		"connection refused": closed,
		"HTTP 404":           strings.TrimSuffix(url, "tla2tools.jar") + "missing.jar",
		"bad URL":            "http://%zz/tla2tools.jar",
	} {
		dir := t.TempDir()
		_, err := Installer{URL: u, Dir: dir, Version: never}.Install(context.Background())
		oneLine(t, err)
		assert.Contains(t, err.Error(), "downloading", name)
		assert.Empty(t, leftovers(t, dir), name)
		t.Logf("%s: %v", name, err)
	}

	empty, _ := jarServer(t, nil)
	_, err = Installer{URL: empty, Dir: t.TempDir(), Version: never}.Install(context.Background())
	oneLine(t, err)
	assert.Contains(t, err.Error(), "empty body")
}

func TestInstallURLFromEnv(t *testing.T) {
	body := []byte("from env")
	url, hits := jarServer(t, body)
	t.Setenv(URLEnv, url)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(JarEnv, "")
	got, err := Installer{Version: fakeVersion(t, body, "TLC2 Version 2.19 of 08 August 2024\n", nil)}.Install(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, *hits)
	assert.Equal(t, url, got.URL)
	assert.Equal(t, filepath.Join(home, ".cache", "tla", "tla2tools.jar"), got.Path, "the default is where FindJar looks")
	found, err := FindJar()
	require.NoError(t, err)
	assert.Equal(t, got.Path, found)

	t.Setenv(URLEnv, "")
	assert.Equal(t, "https://github.com/tlaplus/tlaplus/releases/download/v1.8.0/tla2tools.jar", DefaultJarURL)
}

// fakeTLC is a tlc2.TLC that prints a version line the way TLC does and
// exits 1, taking the version from FAKE_TLC_VERSION.
const fakeTLC = `package tlc2;
public class TLC {
	public static void main(String[] args) {
		System.out.println("TLC2 Version " + System.getenv("FAKE_TLC_VERSION") + " of Day Month 20?? (rev: fake)");
		System.err.println("Error: Error: unrecognized option: " + String.join(" ", args));
		System.exit(1);
	}
}
`

// TestInstallRunsTheRealJavaPath serves a tiny real jar and lets
// RunVersion run it with java. Skipped without java, javac and jar.
func TestInstallRunsTheRealJavaPath(t *testing.T) {
	java, err := FindJava()
	if err != nil {
		t.Skip(err)
	}
	javac, err1 := exec.LookPath("javac")
	jarTool, err2 := exec.LookPath("jar")
	if err := errors.Join(err1, err2); err != nil {
		t.Skip("javac and jar are needed to build a test jar:", err)
	}
	t.Logf("java %s", java)
	src := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(src, "tlc2"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "tlc2", "TLC.java"), []byte(fakeTLC), 0o644))
	classes := filepath.Join(src, "classes")
	if out, err := exec.Command(javac, "-d", classes, filepath.Join(src, "tlc2", "TLC.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	jarPath := filepath.Join(src, "fake.jar")
	if out, err := exec.Command(jarTool, "cf", jarPath, "-C", classes, ".").CombinedOutput(); err != nil {
		t.Fatalf("jar: %v\n%s", err, out)
	}
	body, err := os.ReadFile(jarPath)
	require.NoError(t, err)
	url, _ := jarServer(t, body)

	dir := t.TempDir()
	t.Setenv("FAKE_TLC_VERSION", "2.18")
	got, err := Installer{URL: url, Dir: dir}.Install(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "TLC2 Version 2.18 of Day Month 20?? (rev: fake)", got.Version)
	assert.Equal(t, []string{"tla2tools.jar"}, leftovers(t, dir))

	t.Setenv("FAKE_TLC_VERSION", "2.15")
	_, err = Installer{URL: url, Dir: dir}.Install(context.Background())
	oneLine(t, err)
	assert.Contains(t, err.Error(), `is "TLC2 Version 2.15`)

	notJar, _ := jarServer(t, []byte("<html>not a jar</html>"))
	_, err = Installer{URL: notJar, Dir: dir}.Install(context.Background())
	oneLine(t, err)
	assert.Contains(t, err.Error(), "did not run")
	assert.Equal(t, []string{"tla2tools.jar"}, leftovers(t, dir))
	b, _ := os.ReadFile(filepath.Join(dir, "tla2tools.jar"))
	assert.Equal(t, body, b, "the failed installs left the good jar in place")
}

// TestInstallFromALocalFile: -url takes a path or a file:// URL as well as
// an http(s) one, so a jar fetched by hand (or on a machine without
// network) installs the same way; a missing file says so on one line.
func TestInstallFromALocalFile(t *testing.T) {
	body := []byte("a local jar")
	src := filepath.Join(t.TempDir(), "tla2tools-local.jar")
	require.NoError(t, os.WriteFile(src, body, 0o644))
	for _, url := range []string{src, "file://" + src} {
		dir := t.TempDir()
		got, err := Installer{URL: url, Dir: dir, Version: fakeVersion(t, body, "TLC2 Version 2.19 of 08 August 2024\n", nil)}.Install(context.Background())
		require.NoError(t, err, url)
		assert.Equal(t, url, got.URL)
		assert.Equal(t, int64(len(body)), got.Bytes)
		installed, err := os.ReadFile(filepath.Join(dir, "tla2tools.jar"))
		require.NoError(t, err)
		assert.Equal(t, body, installed, url)
	}

	never := func(context.Context, string) (string, error) {
		t.Error("a failed copy is never run")
		return "", nil
	}
	missing := filepath.Join(t.TempDir(), "nowhere.jar")
	dir := t.TempDir()
	_, err := Installer{URL: missing, Dir: dir, Version: never}.Install(context.Background())
	oneLine(t, err)
	assert.Contains(t, err.Error(), "copying "+missing)
	assert.Contains(t, err.Error(), "no such file")
	_, err = Installer{URL: "file://" + dir, Dir: t.TempDir(), Version: never}.Install(context.Background())
	oneLine(t, err)
	assert.Contains(t, err.Error(), "is not a file")
	assert.Empty(t, leftovers(t, dir))
}
