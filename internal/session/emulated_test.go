package session

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/store"
)

// A sitting emulated by qemu-user is neither judged by the machine's
// history nor recorded in it: its rows get no reproducibility interval
// though the history holds sittings of their cells, the document says why
// in one line, the next native sitting finds only the native ones before
// it, and importing the emulated file is refused.
func TestHistoryRefusesAnEmulatedSitting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	ctx := context.Background()
	for k := int64(1); k <= 2; k++ {
		if h := record(ctx, path, sitting(t, k, 1), &bytes.Buffer{}); !h.Recorded {
			t.Fatalf("native sitting %d not recorded: %+v", k, h)
		}
	}
	d := sitting(t, 3, 1)
	env := d.Environment
	env.Virtualization.Emulated = "qemu-user"
	var log bytes.Buffer
	doc, err := Run(ctx, Spec{Tool: d.Tool, Settings: d.Settings, Environment: &env, History: path, Log: &log, Executor: nopExecutor{},
		Steps: []Step{func(context.Context, experiment.Env) (experiment.Part, error) {
			return experiment.Part{Results: d.Results}, nil
		}}})
	if err != nil {
		t.Fatal(err)
	}
	if h := doc.History; h == nil || h.Recorded || !strings.Contains(h.Note, "emulated by qemu-user") || h.Fingerprint == "" {
		t.Fatalf("emulated sitting's history: %+v", h)
	}
	if n := strings.Count(strings.TrimSpace(log.String()), "\n"); n != 0 || !strings.Contains(log.String(), "history not used") {
		t.Errorf("want one line saying the history was not used, got %q", log.String())
	}
	for _, r := range doc.Results {
		if r.OneWayNS.Reproducibility != nil {
			t.Errorf("%s %s judged by the history of a machine it did not measure", r.Name, r.Placement)
		}
	}
	if h := record(ctx, path, sitting(t, 4, 1), &bytes.Buffer{}); h.Before != 2 {
		t.Errorf("the next native sitting found %d before it, want 2 (the emulated one recorded?)", h.Before)
	}
	st, _, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := Import(ctx, st, doc); err == nil || n != 0 || !strings.Contains(err.Error(), "emulated") {
		t.Errorf("importing an emulated file: %d sittings, %v", n, err)
	}
}

// nopExecutor runs no block: the test's step hands its rows over itself.
type nopExecutor struct{}

func (nopExecutor) Block(context.Context, schedule.Cell, model.Request, time.Duration) (model.Response, error) {
	return model.Response{}, errors.New("no blocks in this test")
}
