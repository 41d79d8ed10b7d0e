package cli

// usage.go: what the command line says about bad input. pflag's and
// cobra's own messages name Go types and parsers ("strconv.ParseUint:
// parsing "-1": invalid syntax", "requires at least 1 arg(s), only received
// 0"); every such error is rewritten here into one line that names the flag
// or the command and what it wants.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// pflag's message for a value its flag could not take.
var invalidArg = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([\w-]+)" flag: (.*)$`)

// flagError rewrites a flag-parsing error of cmd as one plain line.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if m := invalidArg.FindStringSubmatch(msg); m != nil {
		value, name, inner := m[1], m[2], m[3]
		fl := cmd.Flags().Lookup(name)
		if fl == nil {
			fl = cmd.InheritedFlags().Lookup(name)
		}
		want := ""
		if fl != nil {
			want = wants(fl)
		}
		if want == "" {
			// A value type of ours: its message is already plain.
			return usagef("--%s %q: %s", name, value, inner)
		}
		return usagef("--%s %q is not %s", name, value, want)
	}
	for _, p := range []struct{ prefix, say string }{
		{"unknown flag: ", "unknown flag %s"},
		{"unknown shorthand flag: ", "unknown flag %s"},
		{"flag needs an argument: ", "flag %s needs a value"},
		{"bad flag syntax: ", "bad flag syntax %s"},
	} {
		if rest, ok := strings.CutPrefix(msg, p.prefix); ok {
			rest = strings.TrimSpace(rest)
			if i := strings.Index(rest, " in "); i > 0 { // "'x' in -x"
				rest = rest[i+4:]
			}
			if !cmd.HasParent() {
				return usagef(p.say+" (%s --help lists its flags)", rest, cmd.CommandPath())
			}
			return usagef("%s: "+p.say+" (%s --help lists its flags)", where(cmd), rest, cmd.CommandPath())
		}
	}
	return usagef("%s: %v", where(cmd), err)
}

// wants says what a flag of a built-in type takes, in words; "" for a
// value type of ours, whose errors say it themselves.
func wants(fl *pflag.Flag) string {
	switch fl.Value.Type() {
	case "int", "int64", "int32":
		return "a whole number"
	case "uint", "uint64", "uint32":
		return "a whole number of 0 or more"
	case "float64", "float32":
		return "a number"
	case "duration":
		return "a duration with its unit (such as 500ms, 2s, 1m30s)"
	case "bool":
		return "true or false"
	case "stringSlice", "string", "stringArray":
		return "a list of names"
	}
	return ""
}

// argsError rewrites cobra's argument-count errors as one plain line that
// names the command and its usage.
func argsError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	use := cmd.UseLine()
	switch {
	case strings.HasPrefix(msg, "unknown command") && cmd.HasParent():
		return usagef("%s takes no arguments, got %q; usage: %s", where(cmd), strings.Join(cmd.Flags().Args(), " "), use)
	case strings.HasPrefix(msg, "unknown command"):
		return usagef("%s (ctxbench --help lists the commands)", strings.Split(msg, "\n")[0])
	case strings.Contains(msg, "arg(s)"):
		got := len(cmd.Flags().Args())
		return usagef("%s: wrong number of arguments (%d given); usage: %s", where(cmd), got, use)
	}
	return usagef("%s: %v", where(cmd), err)
}

// seedValue is --seed in every command: a whole number from 0 to 2^63−1,
// the same type everywhere (the document records it as such).
type seedValue int64

func (s *seedValue) String() string { return strconv.FormatInt(int64(*s), 10) }
func (s *seedValue) Type() string   { return "SEED" }
func (s *seedValue) Set(v string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("a seed is a whole number from 0 to %d", int64(^uint64(0)>>1))
	}
	*s = seedValue(n)
	return nil
}

// where names a command in a message that Main prefixes with "ctxbench: ":
// the subcommand's name, or "ctxbench" itself.
func where(cmd *cobra.Command) string {
	if !cmd.HasParent() {
		return "ctxbench"
	}
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}
