package cli

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestDocsNameWhatExists reads README.md and docs/*.md and fails on every
// command, flag, path and link they name that does not exist, so the docs
// cannot go stale silently. What counts as naming something:
//
// Commands and flags. A usage is
//   - a line of a fenced block whose first word is ctxbench (after an
//     optional "$ " prompt; a trailing "\" joins the next line);
//   - an inline code span whose first word is ctxbench (a span may wrap
//     across lines);
//   - an inline code span whose first word is a ctxbench command and that
//     holds a flag (`compare --fail-on-regression`), read as if ctxbench
//     came first.
//
// In a usage, the leading words that name subcommands select the command;
// any other word where the root expects a command fails (the root takes no
// arguments), unless it is a placeholder in capitals (CMD). Every --long
// and -s short flag must be the command's own, one it inherits (--color) or
// cobra's --help/--version; a flag that takes a value consumes the next
// word. Brackets, trailing punctuation and "..." are stripped from each
// word; "|", "&&", ";", ">" and "#" end the usage. An inline code span
// whose first word is a --flag names a flag without its command: it must be
// a flag of some command, or one of the few other tools' flags listed in
// externalFlags.
//
// A deprecated spelling (a renamed flag, hidden from --help but still
// accepted) is reported as stale: the docs must say the current name. The
// one exception is a paragraph that says "old spelling" and names the
// current flag too (the README's note that old scripts still work); once
// the old spelling is gone, that paragraph fails as well. A flag hidden
// without being deprecated (the command refuses or ignores it) fails where
// a usage gives it to that command.
//
// Paths. Anywhere in the text except URLs, a path that begins internal/,
// cmd/, probes/, scripts/ or docs/ must exist from the repository root (a
// glob must match something; a trailing "/..." Go package pattern and a
// ".Name" Go selector are cut off first). Any other name ending in .go, .c,
// .h or .sh must be a file of the repository: with a slash, the end of some
// file's path (catalog/ladder.go); without one, some file's name
// (pingpong.c) — except the few files of other projects the docs quote,
// listed in externalFiles.
//
// Links. Every [text](target) whose target is not a URL or an anchor must
// exist relative to the directory of the doc that holds it (an anchor is
// cut off).
func TestDocsNameWhatExists(t *testing.T) {
	root := repoRoot(t)
	files := repoFiles(t, root)
	cmd := newRoot(context.Background(), io.Discard, io.Discard)
	cmd.InitDefaultVersionFlag()
	for _, d := range loadDocs(t, root) {
		for _, p := range checkUsages(cmd, d) {
			t.Errorf("%s", p)
		}
		for _, p := range checkPaths(root, files, d) {
			t.Errorf("%s", p)
		}
		for _, p := range checkLinks(root, d) {
			t.Errorf("%s", p)
		}
	}
}

// TestDocsUseNoUndefinedTerms fails on words from the project's working
// notes that no reader of the docs can look up: a throwaway program's name,
// a numbered note or pitfall from a list that is not in the docs, a private
// nickname. The docs say what is meant in plain words instead.
func TestDocsUseNoUndefinedTerms(t *testing.T) {
	terms := []struct {
		what string
		re   *regexp.Regexp
	}{
		{"spawndrv (a throwaway driver program)", regexp.MustCompile(`(?i)spawndrv`)},
		{"the scratch driver", regexp.MustCompile(`(?i)scratch\s+driver`)},
		{"seed NNN (a working note)", regexp.MustCompile(`(?i)\bseed\s+0\d\d\b`)},
		{"vehicle(s) (the measured contexts)", regexp.MustCompile(`(?i)\bvehicles?\b`)},
		{"pitfall N (a list not in the docs)", regexp.MustCompile(`(?i)\bpitfalls?\s+(#|no\.\s*)?\d+`)},
	}
	for _, d := range loadDocs(t, repoRoot(t)) {
		for _, term := range terms {
			for _, m := range term.re.FindAllStringIndex(d.text, -1) {
				t.Errorf("%s:%d: %q is %s, defined nowhere: say what is meant in plain words", d.name, lineAt(d.text, m[0]), d.text[m[0]:m[1]], term.what)
			}
		}
	}
}

// TestDocsChecksCatchStaleness feeds the checks a made-up doc: every stale
// name in it must be caught, and the prose around them must not trip them.
func TestDocsChecksCatchStaleness(t *testing.T) {
	root := repoRoot(t)
	cmd := newRoot(context.Background(), io.Discard, io.Discard)
	cmd.InitDefaultVersionFlag()
	d := parseDoc("docs/made-up.md", strings.Join([]string{
		"```sh",
		"$ ctxbench spawn goroutine --samples 5",
		"ctxbench pool --repetitions 3 \\",
		"    --warmup 2s",
		"ctxbench bench thread/pipe",
		"ctxbench explain thread/pipe --no-perf-check",
		"```",
		"Run `ctxbench ring --kind",
		"thread --sizes 2` or `memory --n 10`, then `--frobnicate`; see [x](nowhere.md),",
		"internal/nowhere, scripts/nowhere.sh and catalog/nowhere.go.",
		"",
		"None of these is stale: `ctxbench --export-json runA.json`, `ctxbench report a.json -o r.html`,",
		"`ctxbench pool -p cross-cpu --warmup-time 1s`, `ctxbench list [--json]`, `ctxbench COMMAND --help`,",
		"`perf stat -C 0 -- sleep 1`, `javac --release 17`, `--release 17`, `--warmup N`, lmbench's",
		"`src/lat_ctx.c`, `catalog/ladder.go`, internal/render/..., internal/kernels/*.c, [m](methodology.md#top),",
		"[u](https://example.com/x.md), `scripts/ladder.sh`, `internal/result.Ring`.",
		"",
		"The old spelling `spawn --samples` (now `--runs`) still works.",
	}, "\n"))
	var got []string
	got = append(got, checkUsages(cmd, d)...)
	got = append(got, checkPaths(root, repoFiles(t, root), d)...)
	got = append(got, checkLinks(root, d)...)
	want := []string{
		"docs/made-up.md:2: ctxbench spawn --samples is the old spelling of --runs",
		"docs/made-up.md:3: ctxbench pool --repetitions is the old spelling of --runs",
		"docs/made-up.md:3: ctxbench pool --warmup is the old spelling of --warmup-time",
		`docs/made-up.md:5: ctxbench has no command "bench"`,
		"docs/made-up.md:6: ctxbench explain --no-perf-check is hidden",
		"docs/made-up.md:8: ctxbench ring has no flag --sizes",
		"docs/made-up.md:9: ctxbench memory --n is the old spelling of --contexts",
		"docs/made-up.md:9: no ctxbench command has a flag --frobnicate",
		"docs/made-up.md:9: link to nowhere.md",
		"docs/made-up.md:10: internal/nowhere does not exist",
		"docs/made-up.md:10: scripts/nowhere.sh does not exist",
		"docs/made-up.md:10: no file of the repository is catalog/nowhere.go",
	}
	for _, w := range want {
		i := slices.IndexFunc(got, func(g string) bool { return strings.HasPrefix(g, w) })
		if i < 0 {
			t.Errorf("not caught: %s", w)
			continue
		}
		got = slices.Delete(got, i, i+1)
	}
	for _, g := range got {
		t.Errorf("caught what is not stale: %s", g)
	}
}

// externalFiles are files of other projects the docs name, with where.
var externalFiles = map[string]string{
	"src/lat_ctx.c": "lmbench's context-switch benchmark (docs/ring.md)",
	"x86/vmexit.c":  "kvm-unit-tests' exit benchmarks (docs/vm.md)",
	"vmexit.c":      "the same file of kvm-unit-tests (docs/vm.md)",
}

// externalFlags are other tools' --flags the docs quote in a code span of
// their own, with where.
var externalFlags = map[string]string{
	"release": "javac --release (docs/probes.md)",
	"prepare": "hyperfine --prepare (ab --help)",
}

type mdDoc struct {
	name   string     // path from the repository root
	dir    string     // its directory, from the root
	text   string     // the whole file
	prose  string     // the file with fenced blocks blanked (lines kept)
	fenced []codeLine // the fenced blocks' lines, continuations joined
}

type codeLine struct {
	line int
	text string
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// repoFiles lists every file of the repository, slash-separated from the
// root, leaving out hidden directories (.git).
func repoFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && p != root && strings.HasPrefix(e.Name(), ".") {
			return filepath.SkipDir
		}
		if !e.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var fence = regexp.MustCompile("^ {0,3}(```|~~~)")

func loadDocs(t *testing.T, root string) []mdDoc {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names = append([]string{filepath.Join(root, "README.md")}, names...)
	var docs []mdDoc
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, n)
		docs = append(docs, parseDoc(filepath.ToSlash(rel), string(b)))
	}
	return docs
}

// parseDoc splits a markdown file into its prose and its fenced lines.
func parseDoc(name, text string) mdDoc {
	d := mdDoc{name: name, dir: path.Dir(name), text: text}
	lines := strings.Split(text, "\n")
	prose := make([]string, len(lines))
	in, joined, start := false, "", 0
	for i, l := range lines {
		if fence.MatchString(l) {
			in = !in
			continue
		}
		if !in {
			prose[i] = l
			continue
		}
		if joined == "" {
			start = i + 1
		}
		if s, ok := strings.CutSuffix(strings.TrimRight(l, " "), "\\"); ok {
			joined += s + " "
			continue
		}
		d.fenced = append(d.fenced, codeLine{start, joined + l})
		joined = ""
	}
	d.prose = strings.Join(prose, "\n")
	return d
}

func lineAt(s string, off int) int { return strings.Count(s[:off], "\n") + 1 }

var (
	codeSpan  = regexp.MustCompile("`([^`]+)`")
	blankLine = regexp.MustCompile(`\n[ \t]*\n`)
	urlRe     = regexp.MustCompile(`[a-z]+://[^\s)>\]]+`)
)

// paragraph is the paragraph of prose around [start, end).
func paragraph(prose string, start, end int) string {
	from, to := 0, len(prose)
	for _, b := range blankLine.FindAllStringIndex(prose, -1) {
		if b[1] <= start {
			from = b[1]
		}
		if b[0] >= end && to == len(prose) {
			to = b[0]
		}
	}
	return prose[from:to]
}

// usage is one ctxbench command line the docs give.
type usage struct {
	where string
	words []string
	para  string // the paragraph of an inline span ("" in a fenced block)
}

func checkUsages(root *cobra.Command, d mdDoc) []string {
	var us []usage
	var problems []string
	for _, c := range d.fenced {
		w := strings.Fields(strings.TrimPrefix(strings.TrimSpace(c.text), "$ "))
		if len(w) > 0 && w[0] == "ctxbench" {
			us = append(us, usage{fmt.Sprintf("%s:%d", d.name, c.line), w[1:], ""})
		}
	}
	for _, m := range codeSpan.FindAllStringSubmatchIndex(d.prose, -1) {
		span := d.prose[m[2]:m[3]]
		if blankLine.MatchString(span) {
			continue // an unmatched backtick: not a span
		}
		w := strings.Fields(span)
		if len(w) == 0 {
			continue
		}
		where := fmt.Sprintf("%s:%d", d.name, lineAt(d.prose, m[0]))
		para := paragraph(d.prose, m[0], m[1])
		switch {
		case w[0] == "ctxbench":
			us = append(us, usage{where, w[1:], para})
		case findSub(root, w[0]) != nil && slices.ContainsFunc(w[1:], func(s string) bool { return strings.HasPrefix(s, "-") }):
			us = append(us, usage{where, w, para})
		case strings.HasPrefix(w[0], "--") && len(w[0]) > 2:
			if p := checkAnyFlag(root, flagName(w[0][2:]), para); p != "" {
				problems = append(problems, where+": "+p)
			}
		}
	}
	for _, u := range us {
		for _, p := range checkUsage(root, u) {
			problems = append(problems, u.where+": "+p)
		}
	}
	return problems
}

var flagNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*`)

func flagName(s string) string { return flagNameRe.FindString(s) }

func findSub(c *cobra.Command, name string) *cobra.Command {
	for _, s := range c.Commands() {
		if s.Name() == name || s.HasAlias(name) {
			return s
		}
	}
	return nil
}

// lookupFlag finds a flag as the command would parse it: its own, the
// persistent ones it inherits, and cobra's --help.
func lookupFlag(c *cobra.Command, name string, short bool) *pflag.Flag {
	c.InitDefaultHelpFlag()
	for _, fs := range []*pflag.FlagSet{c.Flags(), c.InheritedFlags()} {
		if short {
			if f := fs.ShorthandLookup(name); f != nil {
				return f
			}
		} else if f := fs.Lookup(name); f != nil {
			return f
		}
	}
	return nil
}

// currentName is the flag a deprecated spelling was renamed to.
func currentName(f *pflag.Flag) string {
	if to := f.Annotations[renamedTo]; len(to) > 0 {
		return to[0]
	}
	return strings.TrimPrefix(f.Deprecated, "use --")
}

// oldSpellingNoted says whether para presents f as an old spelling and
// names its current flag too.
func oldSpellingNoted(f *pflag.Flag, para string) bool {
	p := strings.Join(strings.Fields(para), " ")
	return strings.Contains(strings.ToLower(p), "old spelling") &&
		regexp.MustCompile(`--`+regexp.QuoteMeta(currentName(f))+`\b`).MatchString(p)
}

// flagProblem is what is wrong with giving f to command c ("" if nothing).
func flagProblem(c *cobra.Command, f *pflag.Flag, para string) string {
	switch {
	case f.Deprecated != "" && !oldSpellingNoted(f, para):
		return fmt.Sprintf("%s --%s is the old spelling of --%s: say --%s", c.CommandPath(), f.Name, currentName(f), currentName(f))
	case f.Hidden && f.Deprecated == "":
		return fmt.Sprintf("%s --%s is hidden from its --help: the command refuses or ignores it", c.CommandPath(), f.Name)
	}
	return ""
}

func checkUsage(root *cobra.Command, u usage) []string {
	var problems []string
	c, choosing := root, true
	for i := 0; i < len(u.words); i++ {
		raw := u.words[i]
		if raw == "|" || raw == "||" || raw == "&&" || raw == ";" || raw == "&" || strings.HasPrefix(raw, "#") ||
			strings.HasPrefix(raw, ">") || strings.HasPrefix(raw, "2>") {
			break
		}
		w := strings.TrimRight(strings.Trim(raw, "[]()"), ",.;:")
		switch {
		case w == "" || w == "-":
			continue
		case w == "--":
			return problems // the rest are arguments
		case strings.HasPrefix(w, "--"):
			name := flagName(w[2:])
			f := lookupFlag(c, name, false)
			if f == nil {
				problems = append(problems, fmt.Sprintf("%s has no flag --%s", c.CommandPath(), name))
				continue
			}
			if p := flagProblem(c, f, u.para); p != "" {
				problems = append(problems, p)
			}
			if f.NoOptDefVal == "" && !strings.Contains(w, "=") {
				i++ // its value
			}
		case w[0] == '-' && len(w) > 1 && ('a' <= w[1] && w[1] <= 'z' || 'A' <= w[1] && w[1] <= 'Z'):
			f := lookupFlag(c, w[1:2], true)
			if f == nil {
				problems = append(problems, fmt.Sprintf("%s has no flag -%s", c.CommandPath(), w[1:2]))
				continue
			}
			if p := flagProblem(c, f, u.para); p != "" {
				problems = append(problems, p)
			}
			if f.NoOptDefVal == "" && len(w) == 2 {
				i++
			}
		case choosing:
			if s := findSub(c, w); s != nil {
				c = s
				continue
			}
			if c == root && strings.ToUpper(w) != w {
				problems = append(problems, fmt.Sprintf("ctxbench has no command %q", w))
			}
			choosing = false
		}
	}
	return problems
}

// checkAnyFlag checks a --flag named without its command: some command
// must have it, and not only as an old spelling.
func checkAnyFlag(root *cobra.Command, name, para string) string {
	if _, ok := externalFlags[name]; ok || name == "help" || name == "version" {
		return ""
	}
	var old *pflag.Flag
	var oldCmd *cobra.Command
	var walk func(c *cobra.Command) bool
	walk = func(c *cobra.Command) bool {
		if f := lookupFlag(c, name, false); f != nil {
			if f.Deprecated == "" {
				return true
			}
			old, oldCmd = f, c
		}
		return slices.ContainsFunc(c.Commands(), walk)
	}
	if walk(root) {
		return ""
	}
	if old != nil {
		return flagProblem(oldCmd, old, para)
	}
	return fmt.Sprintf("no ctxbench command has a flag --%s", name)
}

var (
	rootPath = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./$-])((?:internal|cmd|probes|scripts|docs)/[A-Za-z0-9_./*-]*)`)
	fileName = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./$-])([A-Za-z0-9_./*-]*[A-Za-z0-9_*]\.(?:go|c|h|sh))\b`)
	selector = regexp.MustCompile(`\.[A-Z][A-Za-z0-9_]*$`)
)

func checkPaths(root string, files []string, d mdDoc) []string {
	var problems []string
	text := urlRe.ReplaceAllStringFunc(d.text, func(s string) string { return strings.Repeat(" ", len(s)) })
	for _, m := range rootPath.FindAllStringSubmatchIndex(text, -1) {
		p := text[m[2]:m[3]]
		p = strings.TrimSuffix(p, "/...")
		p = strings.TrimRight(p, ".,:;")
		p = selector.ReplaceAllString(p, "")
		if matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(p))); len(matches) == 0 {
			problems = append(problems, fmt.Sprintf("%s:%d: %s does not exist", d.name, lineAt(text, m[2]), p))
		}
	}
	for _, m := range fileName.FindAllStringSubmatchIndex(text, -1) {
		p := text[m[2]:m[3]]
		if rootPath.MatchString(p) {
			continue // checked from the root above
		}
		if _, ok := externalFiles[p]; ok {
			continue
		}
		if !slices.ContainsFunc(files, func(f string) bool { return fileMatches(f, p) }) {
			problems = append(problems, fmt.Sprintf("%s:%d: no file of the repository is %s", d.name, lineAt(text, m[2]), p))
		}
	}
	return problems
}

// fileMatches says whether the repository file f is what name (a glob
// allowed) names: its last path elements.
func fileMatches(f, name string) bool {
	fe, ne := strings.Split(f, "/"), strings.Split(name, "/")
	if len(ne) > len(fe) {
		return false
	}
	ok, _ := path.Match(name, strings.Join(fe[len(fe)-len(ne):], "/"))
	return ok
}

var (
	link   = regexp.MustCompile(`\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	scheme = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)
)

func checkLinks(root string, d mdDoc) []string {
	var problems []string
	for _, m := range link.FindAllStringSubmatchIndex(d.prose, -1) {
		target := d.prose[m[2]:m[3]]
		if scheme.MatchString(target) || strings.HasPrefix(target, "#") {
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(d.dir), filepath.FromSlash(target))); err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: link to %s, which does not exist", d.name, lineAt(d.prose, m[0]), target))
		}
	}
	return problems
}
