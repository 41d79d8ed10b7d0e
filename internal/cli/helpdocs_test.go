package cli

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpFlagRe finds a --flag named in prose.
var helpFlagRe = regexp.MustCompile(`(?:^|[^\w-])--([a-z][a-z0-9-]*)`)

// TestHelpNamesWhatExists reads every command's help (its long text, its
// examples and the usage line of each flag) and fails on a flag it names
// that the command lacks: an example line is checked as a usage (as the
// docs' are), and a --flag in prose must be the command's own or inherited,
// unless the same line names another command ("ctxbench run --placement")
// whose flag it is, or it is another tool's flag the help compares with
// (externalFlags: "as hyperfine's --prepare does").
func TestHelpNamesWhatExists(t *testing.T) {
	root := newRoot(context.Background(), io.Discard, io.Discard)
	root.InitDefaultVersionFlag()
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		for _, p := range helpProblems(root, c) {
			t.Errorf("%s --help: %s", c.CommandPath(), p)
		}
	}
}

func helpProblems(root, c *cobra.Command) []string {
	var problems []string
	for i, line := range strings.Split(c.Example, "\n") {
		w := strings.Fields(strings.TrimSpace(line))
		if len(w) > 0 && w[0] == "ctxbench" {
			problems = append(problems, checkUsage(root, usage{fmt.Sprintf("example %d", i+1), w[1:], ""})...)
		}
	}
	prose := strings.Split(c.Long, "\n")
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			prose = append(prose, f.Usage)
		}
	})
	for _, line := range prose {
		for _, m := range helpFlagRe.FindAllStringSubmatch(line, -1) {
			name := m[1]
			if lookupFlag(c, name, false) != nil || (externalFlags[name] != "" && strings.Contains(line, "--"+name)) {
				continue
			}
			ok := false
			for _, other := range root.Commands() {
				if strings.Contains(line, "ctxbench "+other.Name()) && lookupFlag(other, name, false) != nil {
					ok = true
				}
			}
			if !ok {
				problems = append(problems, fmt.Sprintf("names --%s, which it does not have: %q", name, strings.TrimSpace(line)))
			}
		}
	}
	return problems
}

// TestEveryFlagIsDocumented fails for a flag a command offers (not hidden)
// that README.md and docs/*.md never name: each is in the README's table of
// flags or in the doc of its command.
func TestEveryFlagIsDocumented(t *testing.T) {
	root := repoRoot(t)
	var all strings.Builder
	for _, d := range loadDocs(t, root) {
		all.WriteString(d.text)
	}
	docs := all.String()
	cmd := newRoot(context.Background(), io.Discard, io.Discard)
	var missing []string
	for _, c := range append([]*cobra.Command{cmd}, cmd.Commands()...) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Deprecated != "" || f.Name == "help" || f.Name == "version" {
				return
			}
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(f.Name) + `\b`).MatchString(docs) {
				missing = append(missing, c.CommandPath()+" --"+f.Name)
			}
		})
	}
	slices.Sort(missing)
	missing = slices.Compact(missing)
	for _, m := range missing {
		t.Errorf("%s is documented nowhere (README.md's flags table or the command's doc)", m)
	}
}

// The help check catches what it exists to catch.
func TestHelpCheckCatchesStaleness(t *testing.T) {
	root := newRoot(context.Background(), io.Discard, io.Discard)
	c := &cobra.Command{Use: "fake", Long: "tested at --alpha 0.05", Example: "  ctxbench run --no-such-flag"}
	c.Flags().Bool("real", false, "see --real and ctxbench run --placement, not --imaginary")
	root.AddCommand(c)
	ps := helpProblems(root, c)
	for _, want := range []string{"--alpha", "no-such-flag", "--imaginary"} {
		if !slices.ContainsFunc(ps, func(p string) bool { return strings.Contains(p, want) }) {
			t.Errorf("not caught: %s in %q", want, ps)
		}
	}
	if slices.ContainsFunc(ps, func(p string) bool {
		return strings.HasPrefix(p, "names --real") || strings.HasPrefix(p, "names --placement")
	}) {
		t.Errorf("a flag that exists was reported: %q", ps)
	}
}
