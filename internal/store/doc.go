// Package store keeps the history of sittings: one sitting is one
// invocation of ctxbench on one machine. Every measuring command records,
// for each cell it measured, the cell's block medians and a few figures,
// under an environment fingerprint; later ctxbench reads a fingerprint's
// history to estimate how much a cell's median moves between sittings,
// which one sitting cannot see.
//
// # Where and how
//
// The history is one SQLite file, by default
// $XDG_DATA_HOME/ctxbench/history.db (else
// $HOME/.local/share/ctxbench/history.db), opened through database/sql and
// the pure-Go driver modernc.org/sqlite, so ctxbench needs no cgo for it.
// The file is in WAL mode: a reader never waits for a writer, and a second
// writer waits up to five seconds for the first. Each sitting is written in
// one transaction, fsynced at commit: after a crash or a kill it is wholly
// there or wholly absent.
//
// PRAGMA application_id is 0x63747862 ("ctxb"): it tells a ctxbench store
// from another program's SQLite file. PRAGMA user_version is the schema
// version. Open migrates an older store forward, one transaction per step,
// and refuses, without touching it, a store of a newer version. A file at
// the path that is not a ctxbench store (not SQLite, damaged, truncated, or
// another program's database) is renamed to
// history.db.corrupt-YYYYMMDD-HHMMSS or history.db.foreign-YYYYMMDD-HHMMSS
// (UTC, with its -wal, -shm and -journal files), never overwritten or
// deleted, and a new store is made; an empty file, or an empty SQLite
// database, is taken as a new store.
//
// # Schema (version 2)
//
//	CREATE TABLE fingerprints (
//		id          INTEGER PRIMARY KEY,
//		fingerprint TEXT    NOT NULL UNIQUE,
//		description TEXT    NOT NULL,
//		first_ns    INTEGER NOT NULL
//	);
//	CREATE TABLE sittings (
//		id             INTEGER PRIMARY KEY,
//		fingerprint_id INTEGER NOT NULL REFERENCES fingerprints(id),
//		started_ns     INTEGER NOT NULL,
//		command        TEXT    NOT NULL
//	);
//	CREATE TABLE cells (
//		id         INTEGER PRIMARY KEY,
//		sitting_id INTEGER NOT NULL REFERENCES sittings(id) ON DELETE CASCADE,
//		name       TEXT    NOT NULL,
//		placement  TEXT    NOT NULL,
//		cpus       TEXT    NOT NULL,
//		median     REAL,
//		ci_low     REAL,
//		ci_high    REAL,
//		confidence REAL,
//		iterations INTEGER NOT NULL CHECK (iterations >= 0),
//		contended  INTEGER NOT NULL CHECK (contended IN (0, 1)),
//		UNIQUE (sitting_id, name, placement, cpus)
//	);
//	CREATE TABLE block_medians (
//		cell_id INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
//		block   INTEGER NOT NULL CHECK (block >= 0),
//		median  REAL,
//		PRIMARY KEY (cell_id, block)
//	) WITHOUT ROWID;
//	CREATE INDEX sittings_by_fingerprint ON sittings (fingerprint_id, started_ns, id);
//
// fingerprints holds each environment once: fingerprint is the caller's
// short hash, description the JSON it hashed (the first one recorded is
// kept), first_ns when it was first recorded. sittings are the
// invocations: started_ns is the start time in Unix nanoseconds (UTC),
// command the ctxbench command that measured. cells are the measured
// cells, unique by (name, placement, cpus) within a sitting: median and
// the precision interval [ci_low, ci_high] at level confidence, in ns per
// hop; iterations the operations per sample; contended 1 when the figure
// was flagged contended (other work took the measured CPU). block_medians
// are each cell's block medians, block 0, 1, ... in measuring order. A NaN
// figure is stored as NULL, SQLite having no NaN.
//
// Version 1 is the four tables; version 2 adds the index.
//
// History reads one fingerprint's cells (a run learning from its past);
// Every reads all fingerprints' (ctxbench history), each in one statement
// so that a sitting committed meanwhile is wholly in the answer or absent.
package store
