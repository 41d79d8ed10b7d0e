package schedule

import (
	"context"
	"errors"
	"math/rand"
)

// ErrFatal marks an error after which nothing else may run (a server that
// died under a sweep): Rounds stops at once and returns it. Fatal wraps an
// error so.
var ErrFatal = errors.New("fatal")

// Fatal marks err as fatal (errors.Is(Fatal(err), ErrFatal)); it reads as
// err.
func Fatal(err error) error { return fatalError{err} }

type fatalError struct{ err error }

func (f fatalError) Error() string        { return f.err.Error() }
func (f fatalError) Unwrap() error        { return f.err }
func (f fatalError) Is(target error) bool { return target == ErrFatal }

// Done is one finished unit of a cell: what it returned and in which round.
type Done[T any] struct {
	Round int
	Value T
	// Attempts is how many times the unit ran (more than one after a retry).
	Attempts int
}

// RoundOptions shape Rounds.
type RoundOptions struct {
	Seed int64
	// Retry says whether a failed unit of cell i in round r may run again
	// (once); nil never retries.
	Retry func(i, round int, err error) bool
	// Step is called before every unit (for progress), never inside one.
	Step func(i, round int)
	// KeepGoing runs a cell's later units after one failed (a connection
	// pool's point keeps the repetitions that succeeded); OnFail hears of
	// every failure kept that way.
	KeepGoing bool
	OnFail    func(i, round int, err error)
}

// Rounds is the one interleaving loop: in round r every cell i with
// units(i) > r runs one unit, the cells in a seeded random order, so that
// whatever drifts during a run (a noisy minute, a warming cache) reaches
// every cell instead of ruining one. A cell whose unit fails (after the
// retry it may get) runs no more units and keeps the error; the others go
// on. A cancelled ctx or an error wrapping ErrFatal stops everything.
func Rounds[T any](ctx context.Context, cells int, units func(i int) int, run func(ctx context.Context, i, round int) (T, error), o RoundOptions) ([][]Done[T], []error, error) {
	out := make([][]Done[T], cells)
	errs := make([]error, cells)
	most := 0
	for i := 0; i < cells; i++ {
		most = max(most, units(i))
	}
	rng := rand.New(rand.NewSource(o.Seed))
	for r := 0; r < most; r++ {
		for _, i := range rng.Perm(cells) {
			if (errs[i] != nil && !o.KeepGoing) || r >= units(i) {
				continue
			}
			for attempt := 1; ; attempt++ {
				if o.Step != nil && attempt == 1 {
					o.Step(i, r)
				}
				v, err := run(ctx, i, r)
				if ctx.Err() != nil {
					return nil, nil, ctx.Err()
				}
				if errors.Is(err, ErrFatal) {
					return nil, nil, err
				}
				if err == nil {
					out[i] = append(out[i], Done[T]{Round: r, Value: v, Attempts: attempt})
					break
				}
				if attempt == 1 && o.Retry != nil && o.Retry(i, r, err) {
					continue
				}
				if errs[i] == nil {
					errs[i] = err
				}
				if o.OnFail != nil {
					o.OnFail(i, r, err)
				}
				break
			}
		}
	}
	return out, errs, nil
}
