package result

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// Files of schema version 1 (written by the first release, kept in
// testdata as it wrote them) still read: with a warning that their blocks
// are unknown, their labels and rows intact, and their bare-string
// warnings as coded ones.
func TestReadsSchemaV1WithAWarning(t *testing.T) {
	for _, name := range []string{"testdata/v1-ladder.json", "testdata/v1-ring.json"} {
		doc, err := Load(name, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc.SchemaVersion != 1 {
			t.Errorf("%s: schema version %d, want the file's 1", name, doc.SchemaVersion)
		}
		found := false
		for _, w := range doc.Warnings {
			found = found || w.Code == "schema-v1"
		}
		if !found {
			t.Errorf("%s: no schema-v1 warning in %+v", name, doc.Warnings)
		}
		for _, r := range doc.Results {
			if r.Label.String() == "" || BlockSizes(r.BlockInfo) != nil {
				t.Errorf("%s: %s label %q, blocks %v", name, r.Name, r.Label.String(), r.BlockInfo)
			}
		}
	}
	data, err := os.ReadFile("testdata/v1-ladder.json")
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`"flags": []`), []byte(`"flags": [], "warnings": ["high variation (CV 12%)"]`), 1)
	doc, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if w := doc.Results[0].Warnings; len(w) != 1 || !strings.HasPrefix(w[0].Message, "high variation") {
		t.Errorf("a v1 row's string warning read as %+v", w)
	}
	bad := bytes.Replace(data, []byte(`"schema_version": 1`), []byte(`"schema_version": 7`), 1)
	var fe *FormatError
	if _, err := Decode(bad); !errors.As(err, &fe) {
		t.Errorf("schema version 7: %v, want a FormatError", err)
	}
}
