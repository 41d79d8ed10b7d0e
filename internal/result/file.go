package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"golang.org/x/sys/unix"
)

// FormatError says why a result file cannot be read: not JSON, another
// schema version, missing fields, or a value no measurement produces. The
// CLI reports it with exit status 2.
type FormatError struct {
	Path   string
	Reason string
	// Value marks a well-formed file holding an impossible value; Reason
	// then names the figure and the field, which say more than
	// "malformed" would.
	Value bool
}

func (e *FormatError) Error() string {
	what := "malformed result file: "
	if e.Value {
		what = ""
	}
	if e.Path == "" {
		return what + e.Reason
	}
	return fmt.Sprintf("%s: %s%s", e.Path, what, e.Reason)
}

// Load reads and validates a result file ("-" reads stdin, the caller's
// standard input so a testable main can inject it).
func Load(path string, stdin io.Reader) (*Document, error) {
	var data []byte
	var err error
	if path == "-" {
		if stdin == nil {
			return nil, errors.New("-: no standard input to read")
		}
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	doc, err := Decode(data)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			fe.Path = path
		}
		return nil, err
	}
	return doc, nil
}

// Decode parses and validates a document.
func Decode(data []byte) (*Document, error) {
	var probe struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, &FormatError{Reason: jsonReason(err)}
	}
	if probe.SchemaVersion == nil {
		return nil, &FormatError{Reason: "no schema_version (is this a ctxbench result?)"}
	}
	old := *probe.SchemaVersion == 1
	if *probe.SchemaVersion != SchemaVersion && !old {
		return nil, &FormatError{Reason: fmt.Sprintf("schema_version %d, this ctxbench reads versions 1 and %d", *probe.SchemaVersion, SchemaVersion)}
	}
	if old {
		up, err := upgradeV1(data)
		if err != nil {
			return nil, &FormatError{Reason: err.Error()}
		}
		data = up
	}
	var doc Document
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, &FormatError{Reason: err.Error()}
	}
	if err := doc.Validate(); err != nil {
		return nil, err
	}
	if old {
		doc.Warnings = append(doc.Warnings, Warning{Code: "schema-v1",
			Message: "written by an older ctxbench (schema version 1) that did not record its blocks: its intervals treat samples as independent and are too narrow, and compare tests it sample by sample",
			Fix:     "measure again with this ctxbench for block-level intervals"})
	}
	return &doc, nil
}

// upgradeV1 rewrites a version 1 document into this version's shape: its
// warnings were bare strings where they are now objects with a code.
// Everything else version 2 added is optional (labels read from the one
// line, blocks are simply unknown).
func upgradeV1(data []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for k, e := range t {
				if list, ok := e.([]any); ok && k == "warnings" {
					for i, w := range list {
						if s, ok := w.(string); ok {
							list[i] = map[string]any{"code": "", "message": s}
						}
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	return json.Marshal(v)
}

// Validate checks the invariants every consumer relies on: the fields
// every row needs, and no impossible value in the figures compare and the
// report compute from (validate.go).
func (d *Document) Validate() error {
	if d.Results == nil {
		return &FormatError{Reason: "no results array"}
	}
	for i := range d.Results {
		if err := validateResult(i, &d.Results[i]); err != nil {
			return err
		}
	}
	for i := range d.Loads {
		if err := validateLoad(i, &d.Loads[i]); err != nil {
			return err
		}
	}
	for i := range d.Rings {
		if err := validateRing(i, &d.Rings[i]); err != nil {
			return err
		}
	}
	for i := range d.Spawn {
		if err := validateSpawn(i, &d.Spawn[i]); err != nil {
			return err
		}
	}
	return nil
}

// Encode renders the document as indented JSON. A value JSON cannot hold
// (a NaN or an infinity, a bug in whatever computed it) is named by its
// path in the error.
func (d *Document) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		if p := nonFinite(reflect.ValueOf(d), "document"); p != "" {
			return nil, fmt.Errorf("%s is not a number JSON can hold: %w", p, err)
		}
		return nil, err
	}
	return append(b, '\n'), nil
}

// nonFinite is the path of the first NaN or infinite float under v, by
// its fields' JSON names; "" when there is none.
func nonFinite(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ""
		}
		return nonFinite(v.Elem(), path)
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return path
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			f := t.Field(i)
			name := strings.Split(f.Tag.Get("json"), ",")[0]
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if p := nonFinite(v.Field(i), path+"."+name); p != "" {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p := nonFinite(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if p := nonFinite(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k)); p != "" {
				return p
			}
		}
	}
	return ""
}

// WriteFile writes data to path atomically: to a temporary file in the same
// directory, synced, then renamed over path. A reader never sees a partial
// file, and an existing file is replaced only by a complete one. "-" writes
// to w instead.
func WriteFile(path string, data []byte, w io.Writer) error {
	if path == "-" {
		_, err := w.Write(data)
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	return nil
}

// Save encodes the document and writes it atomically (see WriteFile).
func (d *Document) Save(path string, stdout io.Writer) error {
	data, err := d.Encode()
	if err != nil {
		return err
	}
	return WriteFile(path, data, stdout)
}

// CheckWritable reports, before any measuring, why WriteFile could not
// write path: its directory missing or unwritable, or path a directory. A
// run of minutes should not end by losing its results to a typo.
func CheckWritable(path string) error {
	if path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("directory %s: %w", dir, errors.Unwrap(err))
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if err := unix.Access(dir, unix.W_OK); err != nil {
		return fmt.Errorf("directory %s is not writable", dir)
	}
	return nil
}

// jsonReason says in words why data is not a result document, never with
// encoding/json's Go type names: valid JSON of another shape, or where the
// text stops being JSON.
func jsonReason(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return "not a ctxbench result: its top level is a JSON " + te.Value + ", not an object"
		}
		return fmt.Sprintf("not a ctxbench result: %s is a JSON %s", te.Field, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not JSON: the text stops being JSON at byte %d", se.Offset)
	}
	return "not JSON"
}
