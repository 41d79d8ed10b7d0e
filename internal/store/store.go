package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Store is an open history. It is safe for concurrent use, and any number
// of processes may hold the same store open: SQLite's locks serialise the
// writers of a file, and in WAL mode readers never wait for them;
// PostgreSQL's transactions do the same for a fleet's machines.
type Store struct {
	db      *sql.DB
	path    string // as shown: a PostgreSQL URL without its password
	d       *dialect
	secrets []string // what no error may quote (a PostgreSQL password)
}

// CellKey names a cell: what ran, placed how, on which CPUs.
type CellKey struct{ Name, Placement, CPUs string }

// Cell is one measured cell of a sitting.
type Cell struct {
	CellKey
	Median, CILow, CIHigh, Confidence float64   // ns per hop; the precision interval
	BlockMedians                      []float64 // one per block, in order
	BlockProbes                       []float64 // each block's host probe (ns); nil, or 0 for a block, where not read
	Iterations                        uint64    // ops per sample
	Contended                         bool
}

// Sitting is one invocation of ctxbench on one machine.
type Sitting struct {
	Fingerprint string // a short stable key (the caller hashes the description)
	Description string // JSON of what the fingerprint holds, stored once per fingerprint
	Started     time.Time
	Command     string
	Cells       []Cell
}

// Past is one recorded cell with the sitting it came from. Fingerprint is
// the sitting's fingerprint where the reader set it (the caller's, or the
// Machine's it came in): Every and History leave it empty.
type Past struct {
	SittingID   int64
	Started     time.Time
	Fingerprint string
	Cell
}

// Path is where the store is: its file, or its PostgreSQL URL with the
// password replaced by xxxxx.
func (s *Store) Path() string { return s.path }

// Close closes the store. The last handle on a SQLite file to close also
// folds the write-ahead log back into the database file.
func (s *Store) Close() error { return s.db.Close() }

// errorf is fmt.Errorf made one line, without the store's secrets.
func (s *Store) errorf(format string, a ...any) error {
	return scrub(fmt.Errorf(format, a...), s.secrets)
}

// Record writes one sitting and its cells in one transaction: after a crash
// either all of it is there or none. It returns the sitting's id.
func (s *Store) Record(ctx context.Context, st Sitting) (int64, error) {
	if err := st.check(); err != nil {
		return 0, fmt.Errorf("store: record: %w", err)
	}
	id, err := s.record(ctx, st)
	if err != nil {
		return 0, s.errorf("store: record sitting of %s in %s: %w", st.Fingerprint, s.path, err)
	}
	return id, nil
}

// check refuses, before anything is written, what the store could not give
// back as it was given.
func (st *Sitting) check() error {
	if st.Fingerprint == "" {
		return errors.New("empty fingerprint")
	}
	if !json.Valid([]byte(st.Description)) {
		return fmt.Errorf("fingerprint %s: description is not JSON", st.Fingerprint)
	}
	if st.Started.IsZero() {
		return errors.New("zero start time")
	}
	if !storable(st.Fingerprint, st.Description, st.Command) {
		return fmt.Errorf("fingerprint %s: text that is not UTF-8 or holds a NUL", st.Fingerprint)
	}
	seen := make(map[CellKey]bool, len(st.Cells))
	for _, c := range st.Cells {
		if c.Name == "" {
			return errors.New("a cell without a name")
		}
		if !storable(c.Name, c.Placement, c.CPUs) {
			return fmt.Errorf("cell %q: text that is not UTF-8 or holds a NUL", c.Name)
		}
		if seen[c.CellKey] {
			return fmt.Errorf("cell %s/%s/%s twice in one sitting", c.Name, c.Placement, c.CPUs)
		}
		seen[c.CellKey] = true
		// SQLite integers and PostgreSQL's BIGINT are signed 64-bit; a
		// larger count would come back negative.
		if c.Iterations > math.MaxInt64 {
			return fmt.Errorf("cell %s: %d iterations do not fit the store", c.Name, c.Iterations)
		}
	}
	return nil
}

// storable: PostgreSQL's TEXT takes only UTF-8 without NUL, and a
// sitting one backend keeps must be one the other keeps too.
func storable(texts ...string) bool {
	for _, t := range texts {
		if !utf8.ValidString(t) || strings.ContainsRune(t, 0) {
			return false
		}
	}
	return true
}

func (s *Store) record(ctx context.Context, st Sitting) (id int64, err error) {
	// A SQLite connection is opened with _txlock=immediate, so this takes
	// the write lock at BEGIN: a second writer waits there for the busy
	// timeout instead of failing when a deferred transaction would have to
	// upgrade. PostgreSQL's writers do not wait for each other but on the
	// one row they may both insert, a new fingerprint's (ON CONFLICT).
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback() // the error that brought us here is the one to report
		}
	}()
	if _, err = tx.ExecContext(ctx, s.d.bind(qInsertFingerprint), st.Fingerprint, st.Description, time.Now().UnixNano()); err != nil {
		return 0, err
	}
	var fid int64
	if err = tx.QueryRowContext(ctx, s.d.bind(qFingerprintID), st.Fingerprint).Scan(&fid); err != nil {
		return 0, err
	}
	if err = tx.QueryRowContext(ctx, s.d.bind(qInsertSitting), fid, st.Started.UnixNano(), st.Command).Scan(&id); err != nil {
		return 0, err
	}
	ids, err := s.insertCells(ctx, tx, id, st.Cells)
	if err != nil {
		return 0, err
	}
	if err = s.insertBlocks(ctx, tx, st.Cells, ids); err != nil {
		return 0, err
	}
	return id, tx.Commit()
}

// insertCells inserts a sitting's cells and returns their ids by key.
func (s *Store) insertCells(ctx context.Context, tx *sql.Tx, sitting int64, cells []Cell) (map[CellKey]int64, error) {
	ids := make(map[CellKey]int64, len(cells))
	for rest := cells; len(rest) > 0; {
		n := min(len(rest), cellsPerInsert)
		args := make([]any, 0, 10*n)
		for _, c := range rest[:n] {
			args = append(args, sitting, c.Name, c.Placement, c.CPUs,
				storedFloat(c.Median), storedFloat(c.CILow), storedFloat(c.CIHigh), storedFloat(c.Confidence),
				int64(c.Iterations), c.Contended)
		}
		if err := scanIDs(ctx, tx, s.d.bind(qInsertCells+valuesRows(n, 10)+qCellsReturn), args, ids); err != nil {
			return nil, err
		}
		rest = rest[n:]
	}
	if len(ids) != len(cells) {
		return nil, fmt.Errorf("%d cells inserted, %d ids returned", len(cells), len(ids))
	}
	return ids, nil
}

// scanIDs runs a cells INSERT and adds the ids it returns to ids.
func scanIDs(ctx context.Context, tx *sql.Tx, q string, args []any, ids map[CellKey]int64) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var k CellKey
		if err := rows.Scan(&id, &k.Name, &k.Placement, &k.CPUs); err != nil {
			return err
		}
		ids[k] = id
	}
	return rows.Err()
}

// insertBlocks inserts every cell's block medians, numbered from 0.
func (s *Store) insertBlocks(ctx context.Context, tx *sql.Tx, cells []Cell, ids map[CellKey]int64) error {
	var args []any
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, s.d.bind(qInsertBlocks+valuesRows(len(args)/4, 4)), args...)
		args = args[:0]
		return err
	}
	for _, c := range cells {
		for b, m := range c.BlockMedians {
			probe := any(nil) // no reading: NULL
			if b < len(c.BlockProbes) && c.BlockProbes[b] > 0 {
				probe = storedFloat(c.BlockProbes[b])
			}
			args = append(args, ids[c.CellKey], b, storedFloat(m), probe)
			if len(args) == 4*blocksPerInsert {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// storedFloat is how a figure is stored: NaN as NULL, SQLite having no NaN
// (PostgreSQL has, but one meaning in both backends is simpler to read).
func storedFloat(v float64) any {
	if math.IsNaN(v) {
		return nil
	}
	return v
}

// loadedFloat reads a figure back: NULL is the NaN that was stored.
func loadedFloat(v sql.NullFloat64) float64 {
	if !v.Valid {
		return math.NaN()
	}
	return v.Float64
}

// History returns, for one fingerprint, every recorded cell grouped by key,
// oldest sitting first (by start time, then by id). A fingerprint never
// recorded gives an empty map.
func (s *Store) History(ctx context.Context, fingerprint string) (map[CellKey][]Past, error) {
	h, err := s.history(ctx, fingerprint)
	if err != nil {
		return nil, s.errorf("store: history of %s in %s: %w", fingerprint, s.path, err)
	}
	return h, nil
}

func (s *Store) history(ctx context.Context, fingerprint string) (map[CellKey][]Past, error) {
	rows, err := s.db.QueryContext(ctx, s.d.bind(qHistory), fingerprint)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	h := make(map[CellKey][]Past)
	var r cellRows
	for rows.Next() {
		var row cellRow
		if err := rows.Scan(row.dest()...); err != nil {
			return nil, err
		}
		if err := r.add(h, &row); err != nil {
			return nil, err
		}
	}
	unprobed(h)
	return h, rows.Err()
}

// unprobed gives a cell none of whose blocks has a probe reading no
// readings (nil), as it was recorded.
func unprobed(h map[CellKey][]Past) {
	for _, ps := range h {
		for i := range ps {
			if !slices.ContainsFunc(ps[i].BlockProbes, func(p float64) bool { return p != 0 }) {
				ps[i].BlockProbes = nil
			}
		}
	}
}

// cellRow is one row of qHistory (and the tail of one of qEvery): a cell of
// a sitting and one of its blocks.
type cellRow struct {
	p                             Past
	cellID, iterations, started   int64
	median, low, high, conf, bmed sql.NullFloat64
	probe                         sql.NullFloat64
	block                         sql.NullInt64
}

func (c *cellRow) dest() []any {
	return []any{&c.p.SittingID, &c.started, &c.cellID, &c.p.Name, &c.p.Placement, &c.p.CPUs,
		&c.median, &c.low, &c.high, &c.conf, &c.iterations, &c.p.Contended, &c.block, &c.bmed, &c.probe}
}

// cellRows gathers rows ordered by sitting, cell, block: a cell's rows are
// adjacent, so the cell being filled is the last Past appended under its
// key.
type cellRows struct {
	cur   *Past
	curID int64
	began bool
}

func (r *cellRows) add(h map[CellKey][]Past, c *cellRow) error {
	if !r.began || c.cellID != r.curID {
		p := c.p
		p.Started = time.Unix(0, c.started).UTC()
		p.Median, p.CILow, p.CIHigh, p.Confidence = loadedFloat(c.median), loadedFloat(c.low), loadedFloat(c.high), loadedFloat(c.conf)
		p.Iterations = uint64(c.iterations)
		h[p.CellKey] = append(h[p.CellKey], p)
		list := h[p.CellKey]
		r.cur, r.curID, r.began = &list[len(list)-1], c.cellID, true
	}
	if !c.block.Valid {
		return nil
	}
	// Blocks are numbered 0, 1, ... by Record; a gap would mean a block
	// lost, and a shifted list would pair the wrong blocks.
	if c.block.Int64 != int64(len(r.cur.BlockMedians)) {
		return fmt.Errorf("sitting %d cell %s: block %d where %d was due", r.cur.SittingID, r.cur.Name, c.block.Int64, len(r.cur.BlockMedians))
	}
	r.cur.BlockMedians = append(r.cur.BlockMedians, loadedFloat(c.bmed))
	probe := 0.0 // not read
	if c.probe.Valid {
		probe = c.probe.Float64
	}
	r.cur.BlockProbes = append(r.cur.BlockProbes, probe)
	return nil
}

// Machine is one fingerprint's history: what it describes and every cell
// recorded under it, each cell's sittings oldest first.
type Machine struct {
	Fingerprint string
	Description string // the JSON first recorded with the fingerprint
	First       time.Time
	Cells       map[CellKey][]Past
}

// Every returns every fingerprint's history, in the order the fingerprints
// were first recorded; with names, only the cells of those names (a name
// without a slash, "thread", is a rung: every cell "thread/..."). A
// fingerprint with no cell left is not returned.
func (s *Store) Every(ctx context.Context, names []string) ([]Machine, error) {
	ms, err := s.every(ctx, names)
	if err != nil {
		return nil, s.errorf("store: read the history in %s: %w", s.path, err)
	}
	return ms, nil
}

func (s *Store) every(ctx context.Context, names []string) ([]Machine, error) {
	rows, err := s.db.QueryContext(ctx, s.d.bind(qEvery))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Machine
	var r cellRows
	for rows.Next() {
		var (
			m     Machine
			first int64
			row   cellRow
		)
		if err := rows.Scan(append([]any{&m.Fingerprint, &m.Description, &first}, row.dest()...)...); err != nil {
			return nil, err
		}
		if !nameWanted(row.p.Name, names) {
			continue
		}
		if len(out) == 0 || out[len(out)-1].Fingerprint != m.Fingerprint {
			m.First, m.Cells = time.Unix(0, first).UTC(), map[CellKey][]Past{}
			out = append(out, m)
		}
		if err := r.add(out[len(out)-1].Cells, &row); err != nil {
			return nil, err
		}
	}
	for _, m := range out {
		unprobed(m.Cells)
	}
	return out, rows.Err()
}

// nameWanted: no names is every name; a name matches itself, and a name
// without a slash every name under it.
func nameWanted(name string, names []string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if name == n || !strings.Contains(n, "/") && strings.HasPrefix(name, n+"/") {
			return true
		}
	}
	return false
}

// Sittings counts a fingerprint's sittings.
func (s *Store) Sittings(ctx context.Context, fingerprint string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, s.d.bind(qSittings), fingerprint).Scan(&n); err != nil {
		return 0, s.errorf("store: count sittings of %s in %s: %w", fingerprint, s.path, err)
	}
	return n, nil
}
