// Package store keeps the history of sittings: one sitting is one
// invocation of ctxbench on one machine. Every measuring command records,
// for each cell it measured, the cell's block medians and a few figures,
// under an environment fingerprint; later ctxbench reads a fingerprint's
// history to estimate how much a cell's median moves between sittings,
// which one sitting cannot see.
//
// # Where and how
//
// The history is a SQLite file on the machine (the default) or a
// PostgreSQL database a fleet of machines shares; Open tells them apart
// by the target it is given: a postgres:// or postgresql:// URL is
// PostgreSQL, anything else but another scheme's URL is a file path.
// Both are reached through database/sql, with pure-Go drivers
// (modernc.org/sqlite, and pgx's stdlib), so ctxbench needs no cgo for
// either. Recording and reading are one code path: the statements are
// written once (sql.go) and only their placeholders differ (dialect.go).
//
// # SQLite
//
// The default file is $XDG_DATA_HOME/ctxbench/history.db (else
// $HOME/.local/share/ctxbench/history.db). The file is in WAL mode: a
// reader never waits for a writer, and a second writer waits up to five
// seconds for the first. Each sitting is written in one transaction,
// fsynced at commit: after a crash or a kill it is wholly there or wholly
// absent.
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
// # PostgreSQL
//
// A URL such as postgres://bench@db.example/fleet?sslmode=require names a
// database; pgx also reads what libpq would (PGHOST, PGUSER, PGPASSWORD,
// ~/.pgpass, PGSSLMODE, ...), which is where a password is best kept. A
// password in the URL (user:password@ or password=) is never shown: Path,
// and every error and note, print it as xxxxx.
//
// ctxbench's tables live in a schema of their own, ctxbench (the name is
// fixed), so the database may hold other programs' tables, public ones
// included: Open adds the schema beside them and touches nothing else.
// Every connection has search_path = ctxbench (a startup parameter, which
// a pooler between must pass on, as PgBouncer's session mode does), so the
// statements name the tables as SQLite's do. The role needs the right to
// create a schema in the database (CREATE on it), or an administrator
// creates the schema, empty, for the role (CREATE SCHEMA ctxbench
// AUTHORIZATION role). A ctxbench schema that holds anything but is not
// stamped as ctxbench's is refused, not added to; nothing is ever dropped,
// moved or rewritten. PostgreSQL's TEXT holds only UTF-8 without NUL, so
// Record refuses any other text, in both backends, for one meaning.
//
// The stamp SQLite keeps in its header is the one-row table ctxbench.meta
// (application_id 0x63747862, schema_version). Open migrates in
// transactions that first take pg_advisory_xact_lock(0x63747862), waiting
// at most 15 seconds (lock_timeout): machines opening one new database at
// once take turns, and the first makes the schema, its tables and its stamp
// in one transaction, so no one sees tables without a stamp. The lock is
// released at commit, or by the server when a connection dies. A database
// of a newer schema version is refused untouched (ErrNewerSchema).
//
// Many machines record at once: each sitting is one transaction (READ
// COMMITTED); a fingerprint's row is inserted ON CONFLICT DO NOTHING and
// then read, so two machines recording a new fingerprint at once both end
// with the one row. Cells and block medians go in as multi-row INSERTs, a
// few statements a sitting, so a distant server costs few round trips.
//
// A server that is down, refuses, or does not answer fails Open within the
// connect timeout (five seconds a host unless the URL sets
// connect_timeout) or when the caller's context ends, with a one-line
// error; the run goes on without its history.
//
// # Schema (version 3)
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
//		median  REAL, probe REAL,
//		PRIMARY KEY (cell_id, block)
//	) WITHOUT ROWID;
//	CREATE INDEX sittings_by_fingerprint ON sittings (fingerprint_id, started_ns, id);
//
// (SQLite keeps a table's text as altered: probe REAL was added by
// version 3's ALTER TABLE block_medians ADD COLUMN probe REAL.)
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
// figure is stored as NULL, SQLite having no NaN (and so in PostgreSQL,
// for one meaning in both).
//
// Version 1 is the four tables; version 2 adds the index; version 3 adds
// block_medians.probe, each block's host probe reading in ns (NULL where the
// block was not probed, as every block recorded before version 3): how fast
// the host ran the vCPU around the block, from which the history learns how
// much of a figure's movement is the host's.
//
// In PostgreSQL the same tables, columns and constraints are spelt in its
// types, in the ctxbench schema, with the stamp beside them:
//
//	CREATE SCHEMA IF NOT EXISTS ctxbench;
//	CREATE TABLE ctxbench.meta (
//		application_id BIGINT  NOT NULL,
//		schema_version INTEGER NOT NULL,
//		singleton      BOOLEAN NOT NULL DEFAULT true PRIMARY KEY CHECK (singleton)
//	);
//	CREATE TABLE ctxbench.fingerprints (
//		id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
//		fingerprint TEXT   NOT NULL UNIQUE,
//		description TEXT   NOT NULL,
//		first_ns    BIGINT NOT NULL
//	);
//	CREATE TABLE ctxbench.sittings (
//		id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
//		fingerprint_id BIGINT NOT NULL REFERENCES ctxbench.fingerprints(id),
//		started_ns     BIGINT NOT NULL,
//		command        TEXT   NOT NULL
//	);
//	CREATE TABLE ctxbench.cells (
//		id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
//		sitting_id BIGINT  NOT NULL REFERENCES ctxbench.sittings(id) ON DELETE CASCADE,
//		name       TEXT    NOT NULL,
//		placement  TEXT    NOT NULL,
//		cpus       TEXT    NOT NULL,
//		median     DOUBLE PRECISION,
//		ci_low     DOUBLE PRECISION,
//		ci_high    DOUBLE PRECISION,
//		confidence DOUBLE PRECISION,
//		iterations BIGINT  NOT NULL CHECK (iterations >= 0),
//		contended  BOOLEAN NOT NULL,
//		UNIQUE (sitting_id, name, placement, cpus)
//	);
//	CREATE TABLE ctxbench.block_medians (
//		cell_id BIGINT  NOT NULL REFERENCES ctxbench.cells(id) ON DELETE CASCADE,
//		block   INTEGER NOT NULL CHECK (block >= 0),
//		median  DOUBLE PRECISION,
//		PRIMARY KEY (cell_id, block)
//	);
//	CREATE INDEX sittings_by_fingerprint ON ctxbench.sittings (fingerprint_id, started_ns, id);
//	ALTER TABLE ctxbench.block_medians ADD COLUMN probe DOUBLE PRECISION;
//
// contended is a BOOLEAN where SQLite, which has none, checks an INTEGER
// for 0 or 1.
//
// History reads one fingerprint's cells (a run learning from its past);
// Every reads all fingerprints' (ctxbench history), each in one statement
// so that a sitting committed meanwhile is wholly in the answer or absent.
package store
