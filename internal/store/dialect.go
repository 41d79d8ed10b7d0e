package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// dialect is what the two backends say differently. Recording and reading
// are one code path for both: their statements are written once, in
// SQLite's words (sql.go), and bind turns them into PostgreSQL's. What is
// not shared is the schema, spelt in each backend's types, and the stamp
// that says which schema a database holds, which SQLite keeps in its file
// header and PostgreSQL in a table.
type dialect struct {
	name       string // for messages
	numbered   bool   // placeholders are $1, $2, ... instead of ?
	migrations []migration

	// lock runs first in every migration transaction, to make opens take
	// turns; SQLite needs none (BEGIN IMMEDIATE takes its write lock).
	lock []string
	// hasStamp, when set, asks whether the stamp exists at all: PostgreSQL's
	// meta table may not, where SQLite's pragmas always answer (0).
	hasStamp                                    string
	applicationID, schemaVersion, schemaObjects string
	// Formats of one integer each; the stamp takes no bound parameter in
	// SQLite.
	setApplicationID, setSchemaVersion string
}

var sqliteDialect = dialect{
	name:             "SQLite",
	migrations:       migrations,
	applicationID:    qApplicationID,
	schemaVersion:    qUserVersion,
	schemaObjects:    qSchemaObjects,
	setApplicationID: fSetApplicationID,
	setSchemaVersion: fSetUserVersion,
}

var postgresDialect = dialect{
	name:             "PostgreSQL",
	numbered:         true,
	migrations:       pgMigrations,
	lock:             []string{pgLockTimeout, fmt.Sprintf(fPgAdvisoryLock, ApplicationID)},
	hasStamp:         qPgHasMeta,
	applicationID:    qPgApplicationID,
	schemaVersion:    qPgSchemaVersion,
	schemaObjects:    qPgSchemaObjects,
	setApplicationID: fPgSetApplicationID,
	setSchemaVersion: fPgSetSchemaVersion,
}

// bind is q in the dialect's placeholders. The statements hold no '?'
// other than placeholders (no string literal has one), so counting them is
// enough.
func (d *dialect) bind(q string) string {
	if !d.numbered || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r != '?' {
			b.WriteRune(r)
			continue
		}
		n++
		b.WriteString("$" + strconv.Itoa(n))
	}
	return b.String()
}

// stamp is what a database says about its schema: whose it is, which
// version, and how many schema objects (tables, indexes, ...) it holds.
type stamp struct{ app, ver, objects int64 }

// readStamp reads the stamp inside tx. A database without one (no meta
// table, or an empty one) reads as application 0, version 0, as a SQLite
// file never stamped does.
func (d *dialect) readStamp(ctx context.Context, tx *sql.Tx) (stamp, error) {
	var s stamp
	if err := tx.QueryRowContext(ctx, d.schemaObjects).Scan(&s.objects); err != nil {
		return s, err
	}
	if d.hasStamp != "" {
		var has bool
		if err := tx.QueryRowContext(ctx, d.hasStamp).Scan(&has); err != nil || !has {
			return s, err
		}
	}
	for _, q := range []struct {
		sql string
		v   *int64
	}{{d.applicationID, &s.app}, {d.schemaVersion, &s.ver}} {
		err := tx.QueryRowContext(ctx, q.sql).Scan(q.v)
		if errors.Is(err, sql.ErrNoRows) {
			return stamp{objects: s.objects}, nil
		}
		if err != nil {
			return s, err
		}
	}
	return s, nil
}
