package result_test

// schema_test.go: docs/schema.json is the published contract of the result
// file. Every document ctxbench can build without measuring is validated
// against it: the golden files, a dry run of every experiment that has one,
// the creation and memory aggregation over a fake executor, and a document
// carrying the fields only a history gives. The schema lists every field
// with additionalProperties false, and TestSchemaMatchesTheGoTypes checks
// it member by member against result.Document's Go types, so a field added
// to them without the schema fails here, whether or not a test document
// fills it; and every code the sources emit must be in its enums (and in
// docs/schema.md's table).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ctxbench/ctxbench/internal/cli"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/lifecycle"
	"github.com/ctxbench/ctxbench/internal/experiment/replicate"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/testdoc"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

// The repository's root, seen from this package's directory (go test runs
// there).
const repoRoot = "../.."

var schemaFile = filepath.Join(repoRoot, "docs", "schema.json")

// compileSchema compiles docs/schema.json (draft 2020-12).
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("%s does not compile: %v", schemaFile, err)
	}
	return sch
}

// check validates one JSON document against the schema.
func check(sch *jsonschema.Schema, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// mustValidate fails t when data does not obey the schema.
func mustValidate(t *testing.T, sch *jsonschema.Schema, name string, data []byte) {
	t.Helper()
	if err := check(sch, data); err != nil {
		t.Errorf("%s does not obey %s:\n%v", name, schemaFile, err)
	}
}

func encode(t *testing.T, d *result.Document) []byte {
	t.Helper()
	b, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// schemaVersion reads a result file's schema_version; not ok for JSON that
// has none.
func schemaVersion(data []byte) (int, bool) {
	var probe struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if json.Unmarshal(data, &probe) != nil || probe.SchemaVersion == nil {
		return 0, false
	}
	return *probe.SchemaVersion, true
}

// Every result file kept in the repository obeys the schema. Files of
// schema version 1 (internal/result/testdata/v1-*.json, kept as the first
// release wrote them) are another schema: no label_parts, no
// one_way_ns.reproducibility, no blocks recorded, and a version 1 writer's
// warnings may be bare strings. ctxbench still reads them (file_test.go),
// but the schema describes version 2 only.
func TestSchemaGoldenFiles(t *testing.T) {
	sch := compileSchema(t)
	validated := 0
	err := filepath.WalkDir(repoRoot, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == ".git" || e.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".json") || path == schemaFile {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		version, ok := schemaVersion(data)
		if !ok {
			return nil // not a result file
		}
		if version == 1 {
			t.Logf("%s: schema version 1, not described by %s", path, schemaFile)
			return nil
		}
		mustValidate(t, sch, path, data)
		validated++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if validated == 0 {
		t.Fatal("no result file of schema version 2 found in the repository")
	}
}

// The deterministic documents the tests and golden files are made of.
func TestSchemaFakeDocuments(t *testing.T) {
	sch := compileSchema(t)
	for _, o := range []testdoc.Options{
		{Seed: 1, Experiments: true},
		{Seed: 2},
		{Seed: 3, Redraw: 4, Scale: 2, Only: []model.Placement{model.SameCPU}},
	} {
		d, err := testdoc.Doc(o)
		if err != nil {
			t.Fatal(err)
		}
		mustValidate(t, sch, fmt.Sprintf("testdoc.Doc(%+v)", o), encode(t, d))
	}
}

// A dry run of every command that has one, as ctxbench writes it: the
// ladder with the published hierarchy, every benchmark at every placement,
// --target-ci, ring sweeps of every kind, explain, the A/A self-test and an
// interleaved A/B.
// Nothing is measured (the fake executors answer every block), nothing is
// recorded in a history (the container ring, whose points fail, is
// TestSchemaDryRunFailures).
// spawn, memory, pool and replicate have no dry run:
// TestSchemaCreationAndMemory covers the first two.
func TestSchemaDryRuns(t *testing.T) {
	needPinning(t)
	sch := compileSchema(t)
	for _, args := range [][]string{
		{"--dry-run", "--quick", "--seed", "1"},
		{"run", "all", "--dry-run", "--quick", "--placement", "same-cpu,cross-cpu,unpinned", "--seed", "2"},
		{"run", "thread/pipe", "process/pipe", "--dry-run", "--quick", "--target-ci", "0.5", "--seed", "3"},
		{"ring", "--dry-run", "--quick", "--kind", "goroutine,thread,process,process-mt", "--tasks", "2,3,16",
			"--working-set", "0,64KiB", "--placement", "same-cpu,cross-cpu,unpinned", "--seed", "4"},
		{"explain", "thread/pipe", "process/pipe", "thread/futex", "--dry-run", "--quick", "--seed", "6"},
		{"aa", "--dry-run", "--quick", "--sittings", "3", "--seed", "7"},
		{"ab", "thread/pipe", "--dry-run", "--quick", "--setup-a", "true", "--setup-b", "true", "--cleanup", "true", "--seed", "8"},
		{"load", "--dry-run", "--quick", "--kind", "thread,process", "--placement", "same-cpu,cross-cpu,unpinned", "--seed", "8"},
		{"load", "--dry-run", "--quick", "--rate", "1000,50000", "--arrivals", "constant", "--no-reference", "--seed", "9"},
	} {
		args := append(slices.Clone(args), "-q", "--export-json", "-")
		name := "ctxbench " + strings.Join(args, " ")
		var out, errb bytes.Buffer
		code := cli.Main(args, strings.NewReader(""), &out, &errb)
		if code != cli.ExitOK {
			t.Errorf("%s: exit %d: %s", name, code, errb.String())
			continue
		}
		mustValidate(t, sch, name, out.Bytes())
	}
}

// The dry run of a container ring, whose fake executor serves no container
// ring: those points fail (exit status 1), which puts failures in the
// document. A container ring is planned only where containers can be made:
// not under an emulator (qemu-user refuses namespace flags).
func TestSchemaDryRunFailures(t *testing.T) {
	if emu, _ := host.Emulation(""); emu != "" {
		testenv.Skip(t, testenv.Native, "emulated by %s: no container ring is planned", emu)
	}
	args := []string{"ring", "--dry-run", "--quick", "--kind", "thread,container", "--tasks", "2", "--working-set", "0", "--seed", "5", "-q", "--export-json", "-"}
	var out, errb bytes.Buffer
	if code := cli.Main(args, strings.NewReader(""), &out, &errb); (code != cli.ExitOK && code != cli.ExitFailure) || out.Len() == 0 {
		t.Fatalf("ctxbench %s: exit %d, %d bytes written: %s", strings.Join(args, " "), code, out.Len(), errb.String())
	}
	mustValidate(t, compileSchema(t), "ctxbench "+strings.Join(args, " "), out.Bytes())
}

// lifecycleExecutor answers creation and memory blocks as a worker does,
// with made-up figures, so that the aggregation (lifecycle.Spawn and
// lifecycle.Memory) runs without measuring.
type lifecycleExecutor struct{}

func (lifecycleExecutor) Block(_ context.Context, c schedule.Cell, req model.Request, _ time.Duration) (model.Response, error) {
	kind := c.Bench.Name[strings.Index(c.Bench.Name, "/")+1:]
	ctx := "runtime (" + kind + ")"
	for _, k := range []string{"goroutine", "thread", "process", "container", "vm"} {
		if strings.HasPrefix(kind, k) {
			ctx = k
		}
	}
	if strings.Contains(kind, "fork") || strings.Contains(kind, "spawn") || strings.Contains(kind, "exec") {
		ctx = "process"
	}
	if req.Memory != nil {
		return model.Response{NS: []uint64{0}, TSC: []uint64{0}, Memory: &model.MemoryData{
			Kind: kind, Context: ctx, Label: kind + " kept (fake)", Requested: 100, Reached: 90, Limit: "fake limit",
			RSS: 9000, PSS: 8000, Virtual: 1 << 20, KernelStack: 16384, PageTables: 4096, Slab: 512,
			Charged: 8500, ChargedUser: 8000, ChargedKernel: 500, CreateNS: 1500, Runtime: 2600, RuntimeMetric: "fake metric",
			Limits: []string{"fake: 90"}, Notes: []string{"fake"}}}, nil
	}
	r := model.Response{NS: make([]uint64, req.Samples), TSC: make([]uint64, req.Samples),
		Spawn: &model.SpawnData{Context: ctx, Op: "one creation (fake)", Label: kind + " created (fake)", Notes: []string{"fake"}}}
	for i := range r.NS {
		r.NS[i] = uint64(1000 + 10*i + req.Round)
		r.TSC[i] = 2 * r.NS[i]
	}
	return r, nil
}

// Creation and memory, through their own aggregation, with the claims and
// the published hierarchy beside them (as the default ladder derives them)
// and the hierarchy's replications.
func TestSchemaCreationAndMemory(t *testing.T) {
	sch := compileSchema(t)
	d, err := testdoc.Doc(testdoc.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	env := experiment.Env{Environment: d.Environment, CPUs: []int{0, 1}, Host: testdoc.Host,
		Runner: schedule.Runner{Executor: lifecycleExecutor{}, Progress: schedule.NoProgress{}, DryRun: true, Seed: 7}}
	spawn, err := lifecycle.Spawn(context.Background(), env, lifecycle.SpawnKinds(), lifecycle.Options{Samples: 12, PinLast: true})
	if err != nil {
		t.Fatal(err)
	}
	memory, err := lifecycle.Memory(context.Background(), env, lifecycle.MemoryKinds(), lifecycle.Options{NoSettle: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(spawn.Spawn) == 0 || len(memory.Memory) == 0 {
		t.Fatalf("no creation (%d) or memory (%d) figure: every kind skipped or failed (%v %v)",
			len(spawn.Spawn), len(memory.Memory), append(spawn.Skipped, memory.Skipped...), append(spawn.Failures, memory.Failures...))
	}
	d.Spawn, d.Memory = spawn.Spawn, memory.Memory
	d.Skipped = append(append(d.Skipped, spawn.Skipped...), memory.Skipped...)
	d.Failures = append(append(d.Failures, spawn.Failures...), memory.Failures...)
	replicate.Claims(d)
	if d.Derived == nil {
		d.Derived = &result.Derived{}
	}
	d.Derived.Hierarchy, d.Derived.Claims = replicate.Hierarchy(d)
	d.Replications = append(d.Replications, replicate.HierarchyReplications(d)...)
	mustValidate(t, sch, "creation and memory", encode(t, d))
}

// withHistory is a fake document as a machine with a history writes it: a
// reproducibility interval on every row (one pooled from other cells, one
// without a prior component), the history section, and the settings and
// tool fields a real run sets.
func withHistory(t *testing.T) *result.Document {
	t.Helper()
	d, err := testdoc.Doc(testdoc.Options{Seed: 8, Experiments: true})
	if err != nil {
		t.Fatal(err)
	}
	d.Tool.Commit, d.Tool.Build = "0123456789abcdef0123456789abcdef01234567-dirty", "sha256:0123456789abcdef"
	d.Settings.DryRun = false
	d.Settings.TargetCI, d.Settings.TargetBudgetNS, d.Settings.SpanNS = 0.02, 60e9, 10e9
	_, fp, _ := result.FingerprintOf(d)
	d.History = &result.History{Fingerprint: fp, Before: 5, Recorded: true}
	for i := range d.Results {
		r := &d.Results[i]
		f := r.OneWayNS
		prior := stats.Between{Var: 0.0004, Precision: 0.0001, DF: 4, Sittings: 5, Builds: 2, Method: stats.MethodFigures}
		rep := &result.Reproducibility{Low: f.CILow * 0.97, High: f.CIHigh * 1.03, Confidence: 0.95, Sittings: 6, BetweenCV: 0.02,
			Component: stats.Between{Var: 0.0004, Precision: 0.0001, DF: 5, Sittings: 6, Builds: 2, Method: stats.MethodFigures},
			Prior:     &prior}
		switch i {
		case 0:
			rep.Prior = nil
		case 1:
			rep.PooledFrom = []string{"thread/pipe same-cpu", "process/pipe same-cpu"}
			rep.Component.Pooled, rep.Component.Cells = true, 2
		}
		r.OneWayNS.Reproducibility = rep
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("the hand-built document is not one ctxbench would read: %v", err)
	}
	return d
}

// The fields a history adds obey the schema too.
func TestSchemaReproducibility(t *testing.T) {
	sch := compileSchema(t)
	mustValidate(t, sch, "a document with reproducibility intervals", encode(t, withHistory(t)))
}

// edit decodes a document, changes it and encodes it again.
func edit(t *testing.T, data []byte, change func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	change(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func firstResult(doc map[string]any) map[string]any {
	return doc["results"].([]any)[0].(map[string]any)
}

// The schema is a contract, not a description: a document that breaks it
// is refused.
func TestSchemaRefuses(t *testing.T) {
	sch := compileSchema(t)
	good := encode(t, withHistory(t))
	mustValidate(t, sch, "the document every case below changes", good)
	for _, c := range []struct {
		what   string
		change func(map[string]any)
	}{
		{"results[0] without a name", func(d map[string]any) { delete(firstResult(d), "name") }},
		{"placement sideways", func(d map[string]any) { firstResult(d)["placement"] = "sideways" }},
		{"an unknown top-level field", func(d map[string]any) { d["unknown_field"] = 1 }},
		{"an unknown field in a result", func(d map[string]any) { firstResult(d)["unknown_field"] = 1 }},
		{"a reproducibility that is a number", func(d map[string]any) {
			firstResult(d)["one_way_ns"].(map[string]any)["reproducibility"] = 3
		}},
		{"switches_per_hop a string", func(d map[string]any) { firstResult(d)["switches_per_hop"] = "1" }},
		{"a flag code no code emits", func(d map[string]any) {
			firstResult(d)["flags"] = []any{map[string]any{"code": "no-such-code", "message": "m"}}
		}},
		{"schema version 3", func(d map[string]any) { d["schema_version"] = 3 }},
	} {
		if check(sch, edit(t, good, c.change)) == nil {
			t.Errorf("%s: the schema accepts it", c.what)
		}
	}
}

// codesEmitted finds every code the non-test sources under internal/ give
// a flag or a warning: each Code: "..." literal, and each add("...") in a
// file whose add makes a warning of its first argument
// (internal/machine/warnings.go).
func codesEmitted(t *testing.T) map[string][]string {
	t.Helper()
	literal := regexp.MustCompile(`\bCode:\s*"([^"]*)"`)
	adder := regexp.MustCompile(`\badd := func\(code\b[^\n]*Warning\{Code: code\b`)
	added := regexp.MustCompile(`\badd\(\s*"([^"]*)"`)
	codes := map[string][]string{}
	err := filepath.WalkDir(filepath.Join(repoRoot, "internal"), func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		for _, m := range literal.FindAllSubmatch(src, -1) {
			codes[string(m[1])] = append(codes[string(m[1])], rel)
		}
		if adder.Match(src) {
			for _, m := range added.FindAllSubmatch(src, -1) {
				codes[string(m[1])] = append(codes[string(m[1])], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(codes) == 0 {
		t.Fatal("no code found in the sources: the patterns no longer match them")
	}
	return codes
}

// codesListed are the values of the schema's code enums ($defs named
// ...Code).
func codesListed(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Defs map[string]struct {
			Enum []string `json:"enum"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for name, def := range s.Defs {
		if strings.HasSuffix(name, "Code") {
			for _, c := range def.Enum {
				out[c] = true
			}
		}
	}
	return out
}

// Every code the sources emit is in the schema's enums and in
// docs/schema.md's table of codes; every code listed is emitted somewhere.
func TestSchemaListsEveryCode(t *testing.T) {
	emitted, listed := codesEmitted(t), codesListed(t)
	table, err := os.ReadFile(filepath.Join(repoRoot, "docs", "schema.md"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for c := range emitted {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		where := slices.Compact(emitted[c])
		if !listed[c] {
			t.Errorf("code %q (%s) is not in any code enum of %s", c, strings.Join(where, ", "), schemaFile)
		}
		if !bytes.Contains(table, []byte("| `"+c+"` |")) {
			t.Errorf("code %q (%s) is not in docs/schema.md's table of codes", c, strings.Join(where, ", "))
		}
	}
	for c := range listed {
		if _, ok := emitted[c]; !ok {
			t.Errorf("%s lists code %q, which no source under internal/ emits", schemaFile, c)
		}
	}
}

// node is a part of the schema, decoded.
type node = map[string]any

// resolve follows a node's $ref, or the branch of its anyOf that is not
// null, to the schema that describes the value; it also names the $defs
// entry it ended at ("" for an inline schema).
func resolve(t *testing.T, defs node, n node) (node, string) {
	t.Helper()
	if ref, ok := n["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		def, ok := defs[name].(node)
		if !ok {
			t.Fatalf("%s: no such definition", ref)
		}
		return def, name
	}
	if branches, ok := n["anyOf"].([]any); ok {
		for _, b := range branches {
			if b := b.(node); b["type"] != "null" {
				return resolve(t, defs, b)
			}
		}
	}
	return n, ""
}

// jsonTypes is every JSON type a node allows (through $ref, anyOf and
// const).
func jsonTypes(t *testing.T, defs node, n node) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	switch ty := n["type"].(type) {
	case string:
		out[ty] = true
	case []any:
		for _, x := range ty {
			out[x.(string)] = true
		}
	}
	if ref, ok := n["$ref"]; ok {
		def, _ := resolve(t, defs, node{"$ref": ref})
		for k := range jsonTypes(t, defs, def) {
			out[k] = true
		}
	}
	if branches, ok := n["anyOf"].([]any); ok && n["type"] == nil {
		for _, b := range branches {
			for k := range jsonTypes(t, defs, b.(node)) {
				out[k] = true
			}
		}
	}
	if c, ok := n["const"].(float64); ok && c == float64(int64(c)) {
		out["integer"] = true
	}
	return out
}

// goField is one member of a Go type's JSON object.
type goField struct {
	name string
	typ  reflect.Type
	omit bool
}

// markedUp are the fields a type's own MarshalJSON adds to its struct's
// (labels.go: the label as one line and by part).
var markedUp = map[reflect.Type][]goField{
	reflect.TypeFor[result.Result](): {{"label", reflect.TypeFor[string](), false}, {"label_parts", reflect.TypeFor[model.Label](), false}},
	reflect.TypeFor[result.Ring]():   {{"label", reflect.TypeFor[string](), false}, {"label_parts", reflect.TypeFor[model.Label](), false}},
}

// jsonFields lists the members encoding/json writes for a struct type:
// exported fields by their tag's name, embedded structs without a name
// flattened, "-" left out.
func jsonFields(t *testing.T, typ reflect.Type) []goField {
	t.Helper()
	var out []goField
	for f := range typ.Fields() {
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(t, f.Type)...)
			continue
		}
		if !f.IsExported() || tag == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, goField{name, f.Type, strings.Contains(opts, "omitempty")})
	}
	if extra, ok := markedUp[typ]; ok {
		out = append(out, extra...)
	} else if typ.Implements(reflect.TypeFor[json.Marshaler]()) {
		t.Errorf("%v has a MarshalJSON of its own: say in markedUp which fields it writes", typ)
	}
	return out
}

// The schema describes result.Document's Go types member by member: every
// object the document holds, whether or not a test document fills it (the
// pool experiment's windows, say, have no builder that does not measure),
// lists exactly the JSON members its Go type writes, requires exactly those
// written without omitempty, allows null exactly where Go writes it, gives
// each the JSON type Go writes, and refuses members it does not list.
func TestSchemaMatchesTheGoTypes(t *testing.T) {
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var root node
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	defs := root["$defs"].(node)
	seen := map[string]bool{}
	timeType := reflect.TypeFor[time.Time]()

	var value func(path string, typ reflect.Type, n node, omit bool)
	var object func(path string, typ reflect.Type, def node)
	value = func(path string, typ reflect.Type, n node, omit bool) {
		types := jsonTypes(t, defs, n)
		null := types["null"]
		delete(types, "null")
		nullable := false
		switch typ.Kind() {
		case reflect.Pointer:
			nullable = !omit
			typ = typ.Elem()
		case reflect.Slice, reflect.Map:
			if omit && null {
				t.Errorf("%s: omitted when empty, never null, but the schema allows null", path)
			}
			nullable = null // a nil slice or map is written null; the schema says where none is
		}
		if null != nullable {
			t.Errorf("%s: Go writes null: %v; the schema allows null: %v", path, nullable, null)
		}
		want := ""
		switch {
		case typ == timeType:
			want = "string"
		case typ.Kind() == reflect.String:
			want = "string"
		case typ.Kind() == reflect.Bool:
			want = "boolean"
		case typ.Kind() >= reflect.Int && typ.Kind() <= reflect.Uint64:
			want = "integer"
		case typ.Kind() == reflect.Float64 || typ.Kind() == reflect.Float32:
			want = "number"
		case typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array:
			want = "array"
		case typ.Kind() == reflect.Map || typ.Kind() == reflect.Struct:
			want = "object"
		default:
			t.Errorf("%s: Go type %v has no JSON type here", path, typ)
			return
		}
		if len(types) != 1 || !types[want] {
			t.Errorf("%s: Go writes %s (%v), the schema allows %v", path, want, typ, types)
			return
		}
		sub, name := resolve(t, defs, n)
		switch {
		case typ == timeType:
		case typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array:
			items, ok := sub["items"].(node)
			if !ok {
				t.Errorf("%s: an array without items", path)
				return
			}
			if typ.Kind() == reflect.Array && (sub["minItems"] != float64(typ.Len()) || sub["maxItems"] != float64(typ.Len())) {
				t.Errorf("%s: Go writes exactly %d items, the schema says %v to %v", path, typ.Len(), sub["minItems"], sub["maxItems"])
			}
			value(path+"[]", typ.Elem(), items, false)
		case typ.Kind() == reflect.Map:
			items, ok := sub["additionalProperties"].(node)
			if !ok {
				t.Errorf("%s: a map without additionalProperties' schema", path)
				return
			}
			value(path+"{}", typ.Elem(), items, false)
		case typ.Kind() == reflect.Struct:
			if name == "" {
				t.Errorf("%s: an object not in $defs", path)
				return
			}
			if !seen[name] {
				seen[name] = true
				object(name, typ, sub)
			}
		}
	}
	object = func(path string, typ reflect.Type, def node) {
		props, _ := def["properties"].(node)
		if def["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties is not false: a member added to %v would pass unseen", path, typ)
		}
		required := map[string]bool{}
		if r, ok := def["required"].([]any); ok {
			for _, x := range r {
				required[x.(string)] = true
			}
		}
		fields := jsonFields(t, typ)
		have := map[string]bool{}
		for _, f := range fields {
			have[f.name] = true
			p, ok := props[f.name].(node)
			if !ok {
				t.Errorf("%s.%s: %v writes it, the schema does not list it", path, f.name, typ)
				continue
			}
			switch {
			case f.omit && required[f.name]:
				t.Errorf("%s.%s: required, but Go leaves it out when empty (omitempty)", path, f.name)
			case !f.omit && !required[f.name]:
				t.Errorf("%s.%s: Go always writes it (no omitempty), but it is not required", path, f.name)
			}
			if d, _ := p["description"].(string); strings.TrimSpace(d) == "" {
				t.Errorf("%s.%s: no description", path, f.name)
			}
			value(path+"."+f.name, f.typ, p, f.omit)
		}
		for name := range props {
			if !have[name] {
				t.Errorf("%s.%s: the schema lists it, %v does not write it", path, name, typ)
			}
		}
	}
	object("Document", reflect.TypeFor[result.Document](), root)
	for name, d := range defs {
		if d.(node)["type"] == "object" && !seen[name] {
			t.Errorf("$defs.%s: no Go type of the document is described by it", name)
		}
	}
}

// An attach document, built as the command builds one (internal/inplace
// from synthetic readings), with and without --check, validates.
func TestAttachDocumentValidates(t *testing.T) {
	sch := compileSchema(t)
	for _, withCheck := range []bool{false, true} {
		d := result.Document{SchemaVersion: result.SchemaVersion, Command: []string{"ctxbench", "attach"}, Results: []result.Result{},
			Warnings: []result.Warning{}, Attach: testdoc.Attach(withCheck), Settings: result.Settings{Preset: "custom"}}
		b, err := json.Marshal(&d)
		if err != nil {
			t.Fatal(err)
		}
		if err := check(sch, b); err != nil {
			t.Errorf("--check %v: %v", withCheck, err)
		}
	}
}

// needPinning skips a test that pins threads where the platform cannot
// (macOS): it declares the capability pinning where it can.
func needPinning(t *testing.T) {
	t.Helper()
	if ok, why := platform.This.Gives(platform.Pinning); !ok {
		testenv.Skip(t, testenv.Pinning, "%s", why)
	}
}
