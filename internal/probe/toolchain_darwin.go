package probe

// toolchain_darwin.go: where macOS and Homebrew put the probes'
// toolchains, and how to install them there. Java's JDKs are found as macOS
// finds them: /usr/libexec/java_home (the default JDK, and each version
// asked for), then every bundle under /Library/Java/JavaVirtualMachines,
// then Homebrew's openjdk kegs (not linked into PATH).

import (
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Install commands, quoted in every "unavailable" reason.
const (
	InstallErlang   = "brew install erlang"
	InstallRust     = "a Rust toolchain >= 1.85 with cargo (rustup, https://rustup.rs), and crates.io reachable for the first build"
	InstallJavac    = "brew install openjdk@17 (or any JDK >= 17 under /Library/Java/JavaVirtualMachines)"
	InstallJava21   = "brew install openjdk@21, or point JAVA_HOME at a JDK >= 21"
	InstallNode     = "brew install node"
	InstallPython   = "xcode-select --install (or brew install python)"
	InstallGreenlet = "pip3 install greenlet"
	InstallCpp      = "xcode-select --install (the g++ it provides is Apple clang, with C++20 coroutines)"
)

// javaPlaces names where javaHomes looks, for a reason.
const javaPlaces = "/usr/libexec/java_home, /Library/Java/JavaVirtualMachines, Homebrew's openjdk"

// javaHomes are the installed JDKs: java_home's answers for the versions
// the probes use, then the others it would pick from, then Homebrew's.
func javaHomes() []string {
	var homes []string
	for _, v := range []string{"", "21", "17"} {
		args := []string{}
		if v != "" {
			args = append(args, "-v", v)
		}
		if out, err := exec.Command("/usr/libexec/java_home", args...).Output(); err == nil {
			homes = append(homes, strings.TrimSpace(string(out)))
		}
	}
	bundles, _ := filepath.Glob("/Library/Java/JavaVirtualMachines/*/Contents/Home")
	kegs, _ := filepath.Glob("/opt/homebrew/opt/openjdk*/libexec/openjdk.jdk/Contents/Home")
	intel, _ := filepath.Glob("/usr/local/opt/openjdk*/libexec/openjdk.jdk/Contents/Home")
	rest := append(append(bundles, kegs...), intel...)
	sort.Strings(rest)
	return append(homes, rest...)
}
