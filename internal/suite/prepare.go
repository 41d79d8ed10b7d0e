package suite

import (
	"context"

	"github.com/ctxbench/ctxbench/internal/probe"
)

// ProbeLanguages are the runtimes whose probes `ctxbench prepare` builds,
// in order.
func ProbeLanguages() []string {
	var out []string
	for _, l := range probe.Languages {
		out = append(out, string(l))
	}
	return out
}

// DetectProbe finds lang's toolchain and returns its version; the error
// says what is missing and how to install it.
func DetectProbe(lang string) (version string, err error) {
	tc, err := probe.Detect(probe.Language(lang))
	return tc.Version, err
}

// BuildProbe builds lang's probe into the cache; cached says an earlier
// build was reused.
func BuildProbe(ctx context.Context, lang string) (cached bool, err error) {
	b, err := probe.Build(ctx, probe.Language(lang))
	return b.Cached, err
}
