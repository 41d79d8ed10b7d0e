package layout

// fit.go: prose laid out for the width (Fit, FitLine, Prose), and how wide
// a string is on a terminal.

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Width is the number of terminal columns s takes: its runes, less ANSI
// colour sequences. Every character ctxbench prints is one column wide.
func Width(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == '\x1b' {
			j := strings.IndexByte(s[i:], 'm')
			if j < 0 {
				break
			}
			i += j + 1
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}

// wrapWords breaks s into lines of at most width columns at spaces; lines
// after the first start with indent. A word longer than a line (a path, a
// URL) is cut: the view's width is a promise.
func wrapWords(s string, width int, indent string) []string {
	var out []string
	cur, empty := "", true
	for _, word := range strings.Fields(s) {
		if !empty && Width(cur)+1+Width(word) > width {
			out = append(out, cur)
			cur, empty = indent, true
		}
		if !empty {
			cur += " "
		}
		for Width(cur)+Width(word) > width && Width(cur) < width {
			cut := cutAt(word, width-Width(cur))
			out = append(out, cur+cut)
			word = word[len(cut):]
			cur = indent
		}
		cur += word
		empty = false
	}
	return append(out, strings.TrimRight(cur, " "))
}

// cutAt is the longest prefix of s that is at most n columns (at least one
// rune), ending after a "/" or "-" where one lies in its second half, so a
// name breaks between its parts.
func cutAt(s string, n int) string {
	k, end := 0, len(s)
	for i := range s {
		if k >= max(n, 1) {
			end = i
			break
		}
		k++
	}
	if j := strings.LastIndexAny(s[:end], "/-"); j >= 0 && j+1 >= end/2 && j+1 < end {
		return s[:j+1]
	}
	return s[:end]
}

// Fit returns a writer that lays out every line written to it for st:
// trailing spaces dropped, and a line wider than st.Columns() word-wrapped
// with a hanging indent (under the text after a footnote number, a
// "warning:", a mark or a "NAME:" lead, else two columns in). Tables are
// laid out by Table before they reach it; Fit is for prose, and the
// guarantee that no line of a view is wider than its terminal. Call Flush
// when done.
func Fit(w io.Writer, st Style) *FitWriter { return &FitWriter{w: w, width: st.limit(), st: st} }

// FitWriter is Fit's writer.
type FitWriter struct {
	w     io.Writer
	width int
	st    Style
	buf   []byte
}

func (f *FitWriter) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p...)
	for {
		i := strings.IndexByte(string(f.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(f.buf[:i])
		f.buf = f.buf[i+1:]
		for _, l := range FitLine(line, f.width) {
			if _, err := io.WriteString(f.w, l+"\n"); err != nil {
				return 0, err
			}
		}
	}
}

// Style is the style the view is laid out in.
func (f *FitWriter) Style() Style { return f.st }

// Flush writes a last line that had no newline.
func (f *FitWriter) Flush() error {
	if len(f.buf) == 0 {
		return nil
	}
	line := string(f.buf)
	f.buf = nil
	ls := FitLine(line, f.width)
	_, err := io.WriteString(f.w, strings.Join(ls, "\n"))
	return err
}

// FitLine is one line laid out for width: itself without trailing spaces
// when it fits, else its words wrapped with a hanging indent.
func FitLine(line string, width int) []string {
	line = strings.TrimRight(line, " \t")
	if Width(line) <= width {
		return []string{line}
	}
	body := strings.TrimLeft(line, " ")
	lead := len(line) - len(body)
	hang := lead + 2
	if first, _, ok := strings.Cut(body, " "); ok {
		fw := Width(first)
		switch {
		case strings.HasPrefix(first, "[") && strings.HasSuffix(first, "]") && fw <= 6, // a footnote "[12]"
			fw <= 2, // a mark: "‡", "′", "~:"
			strings.HasSuffix(first, ":") && fw <= 12: // "warning:", "fix:", "±REPRO:"
			hang = lead + fw + 1
		}
	}
	hang = min(hang, width/3)
	out := wrapWords(body, width-lead, strings.Repeat(" ", max(hang-lead, 0)))
	for i := range out {
		out[i] = strings.Repeat(" ", lead) + out[i]
	}
	return out
}

// Prose writes a formatted line (or lines) laid out for st: each line
// fitted (FitLine) to st's width, or left whole with Wide as Fit leaves
// it, so a view is laid out even where its writer is not a FitWriter.
func Prose(w io.Writer, st Style, format string, a ...any) {
	text := fmt.Sprintf(format, a...)
	for _, line := range strings.SplitAfter(text, "\n") {
		nl := strings.HasSuffix(line, "\n")
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			if nl {
				fmt.Fprintln(w)
			}
			continue
		}
		for _, l := range FitLine(line, st.limit()) {
			fmt.Fprintln(w, l)
		}
	}
}
