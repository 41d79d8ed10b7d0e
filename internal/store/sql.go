package store

// Every SQL statement the store runs is in this file, so that a second
// backend (PostgreSQL, for fleets) has one place to translate from and the
// rest of the package speaks only Go.

// migration is one step of the schema: it takes a store at schema version
// to-1 to version to. Steps are never edited once released; a change is a
// new step appended to migrations.
type migration struct {
	to  int
	sql string
}

// migrations, in order; the last one's to is SchemaVersion. Each step runs
// in its own write transaction together with the user_version bump, so a
// crash leaves the store at one version or the next, never between.
var migrations = []migration{
	{to: 1, sql: schemaV1},
	{to: 2, sql: schemaV2},
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
const (
	qInsertFingerprint = `INSERT INTO fingerprints (fingerprint, description, first_ns) VALUES (?, ?, ?)
		ON CONFLICT (fingerprint) DO NOTHING`
	qFingerprintID = `SELECT id FROM fingerprints WHERE fingerprint = ?`
	qInsertSitting = `INSERT INTO sittings (fingerprint_id, started_ns, command) VALUES (?, ?, ?)`
	qInsertCell    = `INSERT INTO cells (sitting_id, name, placement, cpus, median, ci_low, ci_high, confidence, iterations, contended)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qInsertBlock = `INSERT INTO block_medians (cell_id, block, median) VALUES (?, ?, ?)`
)

// Reading a fingerprint's history in one statement: one statement reads one
// snapshot, so a sitting committed meanwhile is either wholly in the answer
// or wholly absent. A cell without blocks still comes back (LEFT JOIN, block
// NULL).
const (
	qHistory = `SELECT s.id, s.started_ns,
		c.id, c.name, c.placement, c.cpus, c.median, c.ci_low, c.ci_high, c.confidence, c.iterations, c.contended,
		b.block, b.median
	FROM fingerprints f
	JOIN sittings s ON s.fingerprint_id = f.id
	JOIN cells c ON c.sitting_id = s.id
	LEFT JOIN block_medians b ON b.cell_id = c.id
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
		c.id, c.name, c.placement, c.cpus, c.median, c.ci_low, c.ci_high, c.confidence, c.iterations, c.contended,
		b.block, b.median
	FROM fingerprints f
	JOIN sittings s ON s.fingerprint_id = f.id
	JOIN cells c ON c.sitting_id = s.id
	LEFT JOIN block_medians b ON b.cell_id = c.id
	ORDER BY f.first_ns, f.id, s.started_ns, s.id, c.id, b.block`
