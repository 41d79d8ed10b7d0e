package store

import "strings"

// Every SQL statement the store runs is in this file, for both backends:
// SQLite's are written out, PostgreSQL's are the same text with numbered
// placeholders (see dialect.go) except for the schema and its stamp, which
// the two spell differently. The rest of the package speaks only Go.

// migration is one step of the schema: it takes a store at schema version
// to-1 to version to. Steps are never edited once released; a change is a
// new step appended to migrations.
type migration struct {
	to  int
	sql string
}

// migrations, in order; the last one's to is SchemaVersion. Each step runs
// in its own write transaction together with the version bump (SQLite's
// user_version, PostgreSQL's meta.schema_version), so a crash leaves the
// store at one version or the next, never between.
var migrations = []migration{
	{to: 1, sql: schemaV1},
	{to: 2, sql: schemaV2},
	{to: 3, sql: schemaV3},
}

// schemaV1 holds the data. Times are Unix nanoseconds (UTC): exact, sortable
// as integers and free of time-zone text. NaN has no REAL value in SQLite
// (it is stored as NULL), hence the figures are nullable and read back as
// NaN.
//
// Block medians are a child table rather than a JSON column: each value is
// an exact REAL (no text round trip), their order is the explicit block
// number instead of an array position inside a string, SQL can aggregate
// them across sittings without a JSON extension, and the same table works
// unchanged in PostgreSQL.
//
// A sitting's cells are unique by key: the history estimates how one cell's
// median moves from sitting to sitting, which two figures for one cell in
// one sitting would make ambiguous.
const schemaV1 = `
CREATE TABLE fingerprints (
	id          INTEGER PRIMARY KEY,
	fingerprint TEXT    NOT NULL UNIQUE,
	description TEXT    NOT NULL,
	first_ns    INTEGER NOT NULL
);
CREATE TABLE sittings (
	id             INTEGER PRIMARY KEY,
	fingerprint_id INTEGER NOT NULL REFERENCES fingerprints(id),
	started_ns     INTEGER NOT NULL,
	command        TEXT    NOT NULL
);
CREATE TABLE cells (
	id         INTEGER PRIMARY KEY,
	sitting_id INTEGER NOT NULL REFERENCES sittings(id) ON DELETE CASCADE,
	name       TEXT    NOT NULL,
	placement  TEXT    NOT NULL,
	cpus       TEXT    NOT NULL,
	median     REAL,
	ci_low     REAL,
	ci_high    REAL,
	confidence REAL,
	iterations INTEGER NOT NULL CHECK (iterations >= 0),
	contended  INTEGER NOT NULL CHECK (contended IN (0, 1)),
	UNIQUE (sitting_id, name, placement, cpus)
);
CREATE TABLE block_medians (
	cell_id INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
	block   INTEGER NOT NULL CHECK (block >= 0),
	median  REAL,
	PRIMARY KEY (cell_id, block)
) WITHOUT ROWID;
`

// schemaV2 adds the index History and Sittings read through. It is a step of
// its own, not part of version 1, so that the upgrade path (open an older
// store, migrate, keep its rows) is exercised by the tests from the first
// release on rather than first met in the field.
const schemaV2 = `
CREATE INDEX sittings_by_fingerprint ON sittings (fingerprint_id, started_ns, id);
`

// schemaV3 adds each block's host probe reading (ns; NULL where the block
// had none, as every block recorded before this version): the history
// learns from it how much of a figure's movement is the host's speed.
const schemaV3 = `
ALTER TABLE block_medians ADD COLUMN probe REAL;
`

// Identity and health of a file, read by the probe before anything is
// written. quick_check rather than integrity_check: it finds damaged pages
// and a truncated file in linear time without checking every index entry.
const (
	qApplicationID = `PRAGMA application_id`
	qUserVersion   = `PRAGMA user_version`
	qSchemaObjects = `SELECT count(*) FROM sqlite_schema`
	qQuickCheck    = `PRAGMA quick_check`
	qJournalMode   = `PRAGMA journal_mode`
)

// The pragmas that stamp a store. Neither takes a bound parameter, hence
// the format verbs; both values are integers formatted by the caller.
const (
	fSetApplicationID = `PRAGMA application_id = %d`
	fSetUserVersion   = `PRAGMA user_version = %d`
)

// Writing a sitting. The fingerprint row is inserted once; a later sitting
// of the same fingerprint keeps the first description (the fingerprint is
// the description's hash, so they agree unless the caller changed what it
// hashes).
//
// Ids come back through RETURNING, which both backends have (PostgreSQL's
// driver has no LastInsertId). Cells and block medians go in as multi-row
// INSERTs, a chunk of rows per statement: over a network each statement is
// a round trip, and a sitting has hundreds of block medians. A cell's id is
// matched to it by its key, unique in the sitting, not by the order of the
// returned rows, which SQL does not promise.
const (
	qInsertFingerprint = `INSERT INTO fingerprints (fingerprint, description, first_ns) VALUES (?, ?, ?)
		ON CONFLICT (fingerprint) DO NOTHING`
	qFingerprintID = `SELECT id FROM fingerprints WHERE fingerprint = ?`
	qInsertSitting = `INSERT INTO sittings (fingerprint_id, started_ns, command) VALUES (?, ?, ?) RETURNING id`
	qInsertCells   = `INSERT INTO cells (sitting_id, name, placement, cpus, median, ci_low, ci_high, confidence, iterations, contended) VALUES `
	qCellsReturn   = ` RETURNING id, name, placement, cpus`
	qInsertBlocks  = `INSERT INTO block_medians (cell_id, block, median, probe) VALUES `
)

// Rows per multi-row INSERT: 10 and 4 parameters a row stay under 999,
// the smallest limit on parameters any SQLite build has had.
const (
	cellsPerInsert  = 90
	blocksPerInsert = 240
)

// valuesRows is the VALUES list of an INSERT of rows rows of cols
// parameters each: "(?, ?), (?, ?)".
func valuesRows(rows, cols int) string {
	row := "(" + strings.Repeat("?, ", cols-1) + "?)"
	return strings.Repeat(row+", ", rows-1) + row
}

// Reading a fingerprint's history in one statement: one statement reads one
// snapshot, so a sitting committed meanwhile is either wholly in the answer
// or wholly absent. A cell without blocks still comes back (LEFT JOIN, block
// NULL).
const (
	qHistory = `SELECT s.id, s.started_ns,
		` + cellColumns + `
	` + historyJoins + `
	WHERE f.fingerprint = ?
	ORDER BY s.started_ns, s.id, c.id, b.block`
	qSittings = `SELECT count(*) FROM sittings s JOIN fingerprints f ON f.id = s.fingerprint_id WHERE f.fingerprint = ?`
)

// Reading every fingerprint's history (ctxbench history), in one statement
// for one snapshot, as qHistory. Each row repeats its fingerprint's key,
// description and first time: one statement cannot return them once, and
// a second statement would read another snapshot. Fingerprints come in the
// order they were first recorded.
const qEvery = `SELECT f.fingerprint, f.description, f.first_ns,
		s.id, s.started_ns,
		` + cellColumns + `
	` + historyJoins + `
	ORDER BY f.first_ns, f.id, s.started_ns, s.id, c.id, b.block`

// cellColumns are a history row's cell and block (cellRow scans them, in
// this order), historyJoins the tables they come from: qHistory and qEvery
// read the same rows, one fingerprint's or every one's.
const (
	cellColumns = `c.id, c.name, c.placement, c.cpus, c.median, c.ci_low, c.ci_high, c.confidence, c.iterations, c.contended,
		b.block, b.median, b.probe`
	historyJoins = `FROM fingerprints f
	JOIN sittings s ON s.fingerprint_id = f.id
	JOIN cells c ON c.sitting_id = s.id
	LEFT JOIN block_medians b ON b.cell_id = c.id`
)

// PostgreSQL's schema: the same tables, columns and constraints as SQLite's
// in PostgreSQL's types, inside a schema of their own, ctxbench, so that
// they share a database with other programs' tables without a clash of
// names. Ids are 64-bit identities (GENERATED ALWAYS: only the sequence
// gives ids, so none is ever taken twice), times BIGINT nanoseconds, figures
// DOUBLE PRECISION, and contended a BOOLEAN where SQLite, which has none,
// checks an INTEGER for 0 or 1. A NaN figure is stored as NULL here too,
// though PostgreSQL could hold it: one meaning in both backends.
//
// meta is the stamp SQLite keeps in its header (application_id and
// user_version): one row, created with the tables in one transaction, so
// a ctxbench schema is never seen without its stamp. CREATE SCHEMA IF NOT
// EXISTS lets an administrator make the (empty) schema beforehand for a
// role that may not create schemas.
const pgSchemaV1 = `
CREATE SCHEMA IF NOT EXISTS ctxbench;
CREATE TABLE ctxbench.meta (
	application_id BIGINT  NOT NULL,
	schema_version INTEGER NOT NULL,
	singleton      BOOLEAN NOT NULL DEFAULT true PRIMARY KEY CHECK (singleton)
);
CREATE TABLE ctxbench.fingerprints (
	id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	fingerprint TEXT   NOT NULL UNIQUE,
	description TEXT   NOT NULL,
	first_ns    BIGINT NOT NULL
);
CREATE TABLE ctxbench.sittings (
	id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	fingerprint_id BIGINT NOT NULL REFERENCES ctxbench.fingerprints(id),
	started_ns     BIGINT NOT NULL,
	command        TEXT   NOT NULL
);
CREATE TABLE ctxbench.cells (
	id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	sitting_id BIGINT  NOT NULL REFERENCES ctxbench.sittings(id) ON DELETE CASCADE,
	name       TEXT    NOT NULL,
	placement  TEXT    NOT NULL,
	cpus       TEXT    NOT NULL,
	median     DOUBLE PRECISION,
	ci_low     DOUBLE PRECISION,
	ci_high    DOUBLE PRECISION,
	confidence DOUBLE PRECISION,
	iterations BIGINT  NOT NULL CHECK (iterations >= 0),
	contended  BOOLEAN NOT NULL,
	UNIQUE (sitting_id, name, placement, cpus)
);
CREATE TABLE ctxbench.block_medians (
	cell_id BIGINT  NOT NULL REFERENCES ctxbench.cells(id) ON DELETE CASCADE,
	block   INTEGER NOT NULL CHECK (block >= 0),
	median  DOUBLE PRECISION,
	PRIMARY KEY (cell_id, block)
);
`

// pgSchemaV2 is schemaV2 for PostgreSQL.
const pgSchemaV2 = `
CREATE INDEX sittings_by_fingerprint ON ctxbench.sittings (fingerprint_id, started_ns, id);
`

// pgSchemaV3 is schemaV3 for PostgreSQL.
const pgSchemaV3 = `
ALTER TABLE ctxbench.block_medians ADD COLUMN probe DOUBLE PRECISION;
`

// pgMigrations are migrations for PostgreSQL, step for step.
var pgMigrations = []migration{
	{to: 1, sql: pgSchemaV1},
	{to: 2, sql: pgSchemaV2},
	{to: 3, sql: pgSchemaV3},
}

// PostgreSQL's stamp. Opens take turns at migrating under a transaction-
// scoped advisory lock, keyed by ApplicationID: it is released at commit
// or rollback, and by the server when a connection dies, so a killed
// process never leaves it held. lock_timeout bounds the wait for another
// machine's migration; it is a few statements on tables of one row per
// sitting, so seconds are ample.
//
// The objects counted are every relation in the ctxbench schema: a schema
// of that name that holds anything but is not stamped is someone else's,
// and is refused rather than added to.
const (
	pgLockTimeout       = `SET LOCAL lock_timeout = '15s'`
	fPgAdvisoryLock     = `SELECT pg_advisory_xact_lock(%d)`
	qPgHasMeta          = `SELECT to_regclass('ctxbench.meta') IS NOT NULL`
	qPgApplicationID    = `SELECT application_id FROM ctxbench.meta`
	qPgSchemaVersion    = `SELECT schema_version FROM ctxbench.meta`
	qPgSchemaObjects    = `SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'ctxbench'`
	fPgSetApplicationID = `INSERT INTO ctxbench.meta (application_id, schema_version) VALUES (%d, 0)`
	fPgSetSchemaVersion = `UPDATE ctxbench.meta SET schema_version = %d`
)

// pgSchema is the schema ctxbench's tables are in. Every connection has it
// as its search_path, so the statements above name tables as SQLite's do.
const pgSchema = "ctxbench"
