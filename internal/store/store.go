package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// Store is an open history. It is safe for concurrent use, and any number
// of processes may hold the same file open: SQLite's locks serialise the
// writers, and in WAL mode readers never wait for them.
type Store struct {
	db   *sql.DB
	path string
}

// CellKey names a cell: what ran, placed how, on which CPUs.
type CellKey struct{ Name, Placement, CPUs string }

// Cell is one measured cell of a sitting.
type Cell struct {
	CellKey
	Median, CILow, CIHigh, Confidence float64   // ns per hop; the precision interval
	BlockMedians                      []float64 // one per block, in order
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

// Past is one recorded cell with the sitting it came from.
type Past struct {
	SittingID int64
	Started   time.Time
	Cell
}

// Path is the file the store was opened at.
func (s *Store) Path() string { return s.path }

// Close closes the store. The last handle on a file to close also folds the
// write-ahead log back into the database file.
func (s *Store) Close() error { return s.db.Close() }

// Record writes one sitting and its cells in one transaction: after a crash
// either all of it is there or none. It returns the sitting's id.
func (s *Store) Record(ctx context.Context, st Sitting) (int64, error) {
	if err := st.check(); err != nil {
		return 0, fmt.Errorf("store: record: %w", err)
	}
	id, err := s.record(ctx, st)
	if err != nil {
		return 0, fmt.Errorf("store: record sitting of %s in %s: %w", st.Fingerprint, s.path, err)
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
	seen := make(map[CellKey]bool, len(st.Cells))
	for _, c := range st.Cells {
		if c.Name == "" {
			return errors.New("a cell without a name")
		}
		if seen[c.CellKey] {
			return fmt.Errorf("cell %s/%s/%s twice in one sitting", c.Name, c.Placement, c.CPUs)
		}
		seen[c.CellKey] = true
		// SQLite integers are signed 64-bit; a larger count would come back
		// negative.
		if c.Iterations > math.MaxInt64 {
			return fmt.Errorf("cell %s: %d iterations do not fit the store", c.Name, c.Iterations)
		}
	}
	return nil
}

func (s *Store) record(ctx context.Context, st Sitting) (id int64, err error) {
	// The connection is opened with _txlock=immediate, so this takes the
	// write lock at BEGIN: a second writer waits there for the busy timeout
	// instead of failing when a deferred transaction would have to upgrade.
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback() // the error that brought us here is the one to report
		}
	}()
	if _, err = tx.ExecContext(ctx, qInsertFingerprint, st.Fingerprint, st.Description, time.Now().UnixNano()); err != nil {
		return 0, err
	}
	var fid int64
	if err = tx.QueryRowContext(ctx, qFingerprintID, st.Fingerprint).Scan(&fid); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, qInsertSitting, fid, st.Started.UnixNano(), st.Command)
	if err != nil {
		return 0, err
	}
	if id, err = res.LastInsertId(); err != nil {
		return 0, err
	}
	cellStmt, err := tx.PrepareContext(ctx, qInsertCell)
	if err != nil {
		return 0, err
	}
	defer cellStmt.Close()
	blockStmt, err := tx.PrepareContext(ctx, qInsertBlock)
	if err != nil {
		return 0, err
	}
	defer blockStmt.Close()
	for _, c := range st.Cells {
		res, err := cellStmt.ExecContext(ctx, id, c.Name, c.Placement, c.CPUs,
			storedFloat(c.Median), storedFloat(c.CILow), storedFloat(c.CIHigh), storedFloat(c.Confidence),
			int64(c.Iterations), c.Contended)
		if err != nil {
			return 0, err
		}
		cid, err := res.LastInsertId()
		if err != nil {
			return 0, err
		}
		for b, m := range c.BlockMedians {
			if _, err := blockStmt.ExecContext(ctx, cid, b, storedFloat(m)); err != nil {
				return 0, err
			}
		}
	}
	return id, tx.Commit()
}

// storedFloat is how a figure is stored: NaN as NULL, SQLite having no NaN.
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
		return nil, fmt.Errorf("store: history of %s in %s: %w", fingerprint, s.path, err)
	}
	return h, nil
}

func (s *Store) history(ctx context.Context, fingerprint string) (map[CellKey][]Past, error) {
	rows, err := s.db.QueryContext(ctx, qHistory, fingerprint)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	h := make(map[CellKey][]Past)
	// Rows come ordered by sitting, cell, block; a cell's rows are adjacent,
	// so the cell being filled is the last Past appended under its key.
	var cur *Past
	var curID int64 = -1
	for rows.Next() {
		var (
			p                             Past
			cellID, iterations            int64
			median, low, high, conf, bmed sql.NullFloat64
			block                         sql.NullInt64
			started                       int64
		)
		if err := rows.Scan(&p.SittingID, &started, &cellID, &p.Name, &p.Placement, &p.CPUs,
			&median, &low, &high, &conf, &iterations, &p.Contended, &block, &bmed); err != nil {
			return nil, err
		}
		if cellID != curID {
			p.Started = time.Unix(0, started).UTC()
			p.Median, p.CILow, p.CIHigh, p.Confidence = loadedFloat(median), loadedFloat(low), loadedFloat(high), loadedFloat(conf)
			p.Iterations = uint64(iterations)
			h[p.CellKey] = append(h[p.CellKey], p)
			list := h[p.CellKey]
			cur, curID = &list[len(list)-1], cellID
		}
		if !block.Valid {
			continue
		}
		// Blocks are numbered 0, 1, ... by Record; a gap would mean a
		// block lost, and a shifted list would pair the wrong blocks.
		if block.Int64 != int64(len(cur.BlockMedians)) {
			return nil, fmt.Errorf("sitting %d cell %s: block %d where %d was due", cur.SittingID, cur.Name, block.Int64, len(cur.BlockMedians))
		}
		cur.BlockMedians = append(cur.BlockMedians, loadedFloat(bmed))
	}
	return h, rows.Err()
}

// Sittings counts a fingerprint's sittings.
func (s *Store) Sittings(ctx context.Context, fingerprint string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, qSittings, fingerprint).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count sittings of %s in %s: %w", fingerprint, s.path, err)
	}
	return n, nil
}
