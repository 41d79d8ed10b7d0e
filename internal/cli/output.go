package cli

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
)

// checkExports refuses, before anything is measured, export paths that
// could not be written, two exports to one file, and more than one export
// claiming stdout.
// Each pair is {flag, path}.
func checkExports(pairs ...[2]string) error {
	stdoutBy := ""
	byPath := map[string]string{} // a path, made absolute, → the flag that writes it
	for _, fp := range pairs {
		flag, p := fp[0], fp[1]
		if p == "" {
			continue
		}
		if p != "-" {
			abs, err := filepath.Abs(p)
			if err != nil {
				abs = filepath.Clean(p)
			}
			if other, ok := byPath[abs]; ok {
				return usagef("%s and %s both write %s: one would overwrite the other; give each its own file", other, flag, p)
			}
			byPath[abs] = flag
		}
		if p == "-" {
			if stdoutBy != "" {
				return usagef("%s and %s both write to stdout (-); give one of them a file", stdoutBy, flag)
			}
			stdoutBy = flag
			continue
		}
		if err := result.CheckWritable(p); err != nil {
			return usagef("%s %s: %v", flag, p, err)
		}
	}
	return nil
}

// failed is the exit error of a run in which some measurements failed: how
// many of how many, and the first (the tables may have been silenced by -q).
func failed(doc *result.Document, what string, total int) error {
	if len(doc.Failures) == 0 {
		return nil
	}
	f := doc.Failures[0]
	return &exitError{ExitFailure, fmt.Sprintf("%d of %d %s failed; the first, %s: %s",
		len(doc.Failures), total, what, strings.TrimSpace(f.Name+" "+f.Placement), oneLine(f.Error))}
}

// export is one file a command can write: its flag, the path given ("" not
// asked for, "-" stdout) and how the document is written into it.
type export struct {
	flag, path string
	write      func(io.Writer, *result.Document) error
}

// jsonExport writes the whole document, as every measuring command's
// --export-json does.
func jsonExport(path string) export {
	return export{"--export-json", path, func(w io.Writer, d *result.Document) error {
		b, err := d.Encode()
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}}
}

// checkAll is checkExports over exports.
func checkAll(exports []export) error {
	pairs := make([][2]string, 0, len(exports))
	for _, e := range exports {
		pairs = append(pairs, [2]string{e.flag, e.path})
	}
	return checkExports(pairs...)
}

// saveExports writes every export asked for, each atomically, and returns
// where the tables go: stdout, unless an export claimed it.
func saveExports(doc *result.Document, exports []export, stdout, stderr io.Writer) (io.Writer, error) {
	table := stdout
	for _, e := range exports {
		if e.path == "" {
			continue
		}
		var buf bytes.Buffer
		if err := e.write(&buf, doc); err != nil {
			return table, fmt.Errorf("writing %s: %w", e.path, err)
		}
		if err := result.WriteFile(e.path, buf.Bytes(), stdout); err != nil {
			return table, fmt.Errorf("writing %s: %w", e.path, err)
		}
		if e.path == "-" {
			table = stderr
		}
	}
	return table, nil
}
