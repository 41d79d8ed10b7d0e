package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/workload/pgserver"
)

// A PostgreSQL store left at schema version 1 by an older ctxbench, with a
// sitting in it, is migrated on Open and the sitting survives.
func TestPostgresMigrateFromV1(t *testing.T) {
	ctx := context.Background()
	target := pgTarget(t)
	// What version 1 of Open did, by hand, in one transaction (one simple
	// query): the first migration, stamped; then an old sitting.
	pgExec(t, target, strings.Join([]string{
		pgMigrations[0].sql,
		fmt.Sprintf(fPgSetApplicationID, ApplicationID),
		fmt.Sprintf(fPgSetSchemaVersion, 1),
	}, ";\n"))
	pgExec(t, target,
		`INSERT INTO ctxbench.fingerprints (fingerprint, description, first_ns) VALUES ('old', '{"v":1}', 0)`,
		`INSERT INTO ctxbench.sittings (fingerprint_id, started_ns, command) SELECT id, 1000000000, 'ctxbench run' FROM ctxbench.fingerprints`,
		`INSERT INTO ctxbench.cells (sitting_id, name, placement, cpus, median, ci_low, ci_high, confidence, iterations, contended)
			SELECT id, 'k', 'same-cpu', '0', 1.5, 1.25, 1.75, 0.95, 100, false FROM ctxbench.sittings`,
		`INSERT INTO ctxbench.block_medians (cell_id, block, median) SELECT id, 1, 1.6 FROM ctxbench.cells`,
		`INSERT INTO ctxbench.block_medians (cell_id, block, median) SELECT id, 0, 1.4 FROM ctxbench.cells`,
	)

	s := mustOpen(t, target)
	var ver int
	var idx bool
	if err := s.db.QueryRow(qPgSchemaVersion).Scan(&ver); err != nil || ver != SchemaVersion {
		t.Fatalf("schema_version %d (%v), want %d", ver, err, SchemaVersion)
	}
	if err := s.db.QueryRow(`SELECT to_regclass('ctxbench.sittings_by_fingerprint') IS NOT NULL`).Scan(&idx); err != nil || !idx {
		t.Errorf("migration 2 not applied: %v, %v", idx, err)
	}
	h, err := s.History(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	ps := h[CellKey{"k", "same-cpu", "0"}]
	if len(ps) != 1 || ps[0].Median != 1.5 || ps[0].Started.Unix() != 1 || ps[0].Contended ||
		len(ps[0].BlockMedians) != 2 || ps[0].BlockMedians[0] != 1.4 || ps[0].BlockMedians[1] != 1.6 {
		t.Fatalf("old sitting after migration: %+v", ps)
	}
	if _, err := s.Record(ctx, sittingOf("old", 1, 2, 2)); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Sittings(ctx, "old"); n != 2 {
		t.Errorf("%d sittings", n)
	}
}

// pgState is everything a test database holds that Open could change: each
// relation of every schema but the system's with its row count, and the
// stamp.
func pgState(t *testing.T, target string) map[string]string {
	t.Helper()
	db := pgRaw(t, target)
	rows, err := db.Query(`SELECT n.nspname || '.' || c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')`)
	if err != nil {
		t.Fatal(err)
	}
	state := map[string]string{}
	var tables []string
	for rows.Next() {
		var name, kind string
		if err := rows.Scan(&name, &kind); err != nil {
			t.Fatal(err)
		}
		state[name] = kind
		if kind == "r" {
			tables = append(tables, name)
		}
	}
	rows.Close()
	for _, tb := range tables {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM ` + tb).Scan(&n); err != nil {
			t.Fatal(err)
		}
		state[tb] += " " + strconv.Itoa(n)
	}
	var has bool
	if err := db.QueryRow(qPgHasMeta).Scan(&has); err != nil {
		t.Fatal(err)
	}
	if has {
		var app, ver int64
		db.QueryRow(`SELECT application_id, schema_version FROM ctxbench.meta`).Scan(&app, &ver)
		state["stamp"] = fmt.Sprint(app, ver)
	}
	return state
}

// A PostgreSQL store of a newer schema is refused and left as it was.
func TestPostgresNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	target := pgTarget(t)
	s := mustOpen(t, target)
	if _, err := s.Record(ctx, sittingOf("fp", 0, 2, 3)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	pgExec(t, target, fmt.Sprintf(fPgSetSchemaVersion, SchemaVersion+1))
	before := pgState(t, target)

	_, notes, err := Open(ctx, target)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open: %v, want ErrNewerSchema", err)
	}
	if len(notes) != 0 {
		t.Errorf("notes: %q", notes)
	}
	if after := pgState(t, target); !reflect.DeepEqual(before, after) {
		t.Errorf("the newer store changed:\nbefore %v\nafter  %v", before, after)
	}
}

// A ctxbench schema that is someone else's (tables but no stamp, or
// another application's stamp) is refused and nothing is added to it or
// dropped from it.
func TestPostgresForeignSchemaRefused(t *testing.T) {
	for name, setup := range map[string][]string{
		"tables, no stamp": {`CREATE SCHEMA ctxbench`, `CREATE TABLE ctxbench.other (x int)`, `INSERT INTO ctxbench.other VALUES (1)`},
		"another stamp": {`CREATE SCHEMA ctxbench`, `CREATE TABLE ctxbench.meta (application_id bigint, schema_version int)`,
			`INSERT INTO ctxbench.meta VALUES (1234, 1)`},
		"an empty stamp": {`CREATE SCHEMA ctxbench`, `CREATE TABLE ctxbench.meta (application_id bigint, schema_version int)`},
	} {
		t.Run(name, func(t *testing.T) {
			target := pgTarget(t)
			pgExec(t, target, setup...)
			before := pgState(t, target)
			if s, _, err := Open(context.Background(), target); err == nil {
				s.Close()
				t.Fatal("Open of another program's ctxbench schema succeeded")
			} else {
				t.Logf("refused: %v", err)
			}
			if after := pgState(t, target); !reflect.DeepEqual(before, after) {
				t.Errorf("the foreign schema changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// A database that holds other programs' tables takes ctxbench's beside
// them, in the ctxbench schema, touching none of theirs; so does a
// ctxbench schema made empty beforehand by an administrator.
func TestPostgresBesideOtherTables(t *testing.T) {
	ctx := context.Background()
	t.Run("other tables", func(t *testing.T) {
		target := pgTarget(t)
		pgExec(t, target, `CREATE TABLE public.fingerprints (id int, note text)`, `INSERT INTO public.fingerprints VALUES (7, 'theirs')`,
			`CREATE TABLE public.names (id int)`, `INSERT INTO public.names SELECT generate_series(1, 3)`)
		before := pgState(t, target)
		s := mustOpen(t, target)
		if _, err := s.Record(ctx, sittingOf("fp", 0, 2, 2)); err != nil {
			t.Fatal(err)
		}
		after := pgState(t, target)
		for name, v := range before {
			if after[name] != v {
				t.Errorf("%s: %q before, %q after", name, v, after[name])
			}
		}
		for name := range after {
			if _, ok := before[name]; !ok && !strings.HasPrefix(name, "ctxbench.") && name != "stamp" {
				t.Errorf("%s made outside the ctxbench schema", name)
			}
		}
		if n, err := s.Sittings(ctx, "fp"); err != nil || n != 1 {
			t.Errorf("%d sittings, %v", n, err)
		}
	})
	t.Run("empty ctxbench schema", func(t *testing.T) {
		target := pgTarget(t)
		pgExec(t, target, `CREATE SCHEMA ctxbench`)
		s := mustOpen(t, target)
		if _, err := s.Record(ctx, sittingOf("fp", 0, 2, 2)); err != nil {
			t.Fatal(err)
		}
	})
}

const secret = "s3cr3t-pw"

// checkMessage fails unless err is one line that quotes no password.
func checkMessage(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	msg := err.Error()
	if strings.Contains(msg, secret) || strings.Contains(msg, "\n") {
		t.Errorf("%s: %q quotes the password or is not one line", what, msg)
	}
	t.Logf("%s: %s", what, msg)
}

// A PostgreSQL store that is down fails Open with one line that shows no
// password, on its own (refused) or by the connect timeout, well before
// the test's own deadline; a handle whose server went away fails its
// calls the same way.
func TestPostgresDown(t *testing.T) {
	// The guard is the test's, not the store's: a store that waited for it
	// would return only once it has ended, which is checked against.
	guard := func(t *testing.T) context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		t.Cleanup(func() {
			if ctx.Err() != nil {
				t.Error("the store waited for the test's deadline")
			}
			cancel()
		})
		return ctx
	}
	t.Run("unused port", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		_, _, err = Open(guard(t), fmt.Sprintf("postgres://bench:%s@127.0.0.1:%d/db?sslmode=disable", secret, port))
		checkMessage(t, "open", err)
	})
	t.Run("no socket", func(t *testing.T) {
		_, _, err := Open(guard(t), "postgres:///db?host="+t.TempDir()+"&user=bench&password="+secret)
		checkMessage(t, "open", err)
	})
	t.Run("silent server", func(t *testing.T) {
		// A listener that never answers: the connection is made, the
		// startup message is never replied to.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		port := l.Addr().(*net.TCPAddr).Port
		_, _, err = Open(guard(t), fmt.Sprintf("postgres://bench:%s@127.0.0.1:%d/db?sslmode=disable&connect_timeout=1", secret, port))
		checkMessage(t, "open by the connect timeout", err)
		// And a caller that gives up ends the wait: cancelled once the
		// connection is made.
		l2, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l2.Close()
		ctx, cancel := context.WithCancel(context.Background())
		// The accepted connection stays open until the test ends: closing
		// it as the goroutine returned raced the cancel (the client could
		// read end of file before it saw the context end).
		conns := make(chan net.Conn, 1)
		t.Cleanup(func() {
			select {
			case c := <-conns:
				c.Close()
			default:
			}
		})
		go func() {
			if c, err := l2.Accept(); err == nil {
				conns <- c
			}
			cancel()
		}()
		_, _, err = Open(ctx, fmt.Sprintf("postgres://bench:%s@127.0.0.1:%d/db?sslmode=disable&connect_timeout=60", secret, l2.Addr().(*net.TCPAddr).Port))
		checkMessage(t, "open cancelled", err)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("open cancelled: %v, want context.Canceled", err)
		}
	})
	t.Run("stopped server", func(t *testing.T) { stoppedServer(guard(t), t) })
}

// stoppedServer: a store whose server stops under it.
func stoppedServer(ctx context.Context, t *testing.T) {
	needPostgres(t)
	srv, err := pgserver.Start(ctx, pgserver.Options{Rows: 1, MaxConnections: 20})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	target := strings.Replace(pgURL(srv.Dir(), "postgres"), "postgres:///", "postgres://bench:"+secret+"@/", 1)
	s := mustOpen(t, target)
	if strings.Contains(s.Path(), secret) {
		t.Errorf("Path %q shows the password", s.Path())
	}
	if _, err := s.Record(ctx, sittingOf("fp", 0, 2, 2)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	_, err = s.Record(ctx, sittingOf("fp", 1, 2, 2))
	checkMessage(t, "record", err)
	_, err = s.History(ctx, "fp")
	checkMessage(t, "history", err)
	_, _, err = Open(ctx, target)
	checkMessage(t, "open", err)
}

// A URL's password never shows: not in the name shown, not in an error
// that quotes the URL, whatever the scheme.
func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, shown string }{
		{"postgres://bench:" + secret + "@db.example:5432/history", "postgres://bench:xxxxx@db.example:5432/history"},
		{"postgresql://bench@db.example/history?password=" + secret + "&sslmode=require", "postgresql://bench@db.example/history?password=xxxxx&sslmode=require"},
		{"postgres:///h?host=/run/postgresql&Password=" + secret + "%21", "postgres:///h?host=/run/postgresql&Password=xxxxx"},
		{"postgres://bench:p%40ss" + secret + "@db.example/h", "postgres://bench:xxxxx@db.example/h"},
		{"postgres:///h?host=/run/postgresql", "postgres:///h?host=/run/postgresql"},
		{"mysql://root:" + secret + "@db.example/h", "mysql://root:xxxxx@db.example/h"},
		{"postgres://bench:" + secret + "@db.example:port/h", "postgres://(a URL that does not parse)"},
		{"/var/lib/ctxbench/history.db", "/var/lib/ctxbench/history.db"},
	} {
		shown, secrets := redact(c.in)
		if shown != c.shown {
			t.Errorf("redact(%q) = %q, want %q", c.in, shown, c.shown)
		}
		// As a driver's or net/url's error would quote it.
		if err := scrub(fmt.Errorf("cannot parse %s:\n%w", c.in, &url.Error{Op: "parse", URL: c.in, Err: errors.New("bad")}), secrets); strings.Contains(err.Error(), secret) {
			t.Errorf("scrubbed %q still quotes the password", err)
		}
	}
}

// CheckTarget takes a path or a PostgreSQL URL that parses, and says in one
// line, without the password, why anything else is not a store.
func TestCheckTarget(t *testing.T) {
	for _, ok := range []string{"history.db", "/var/lib/h.db", "postgres://db.example/h", "postgresql:///h?host=/run/postgresql"} {
		if err := CheckTarget(ok); err != nil {
			t.Errorf("CheckTarget(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "mysql://root:" + secret + "@db.example/h", "sqlite:///h.db",
		"postgres://bench:" + secret + "@db.example:99999/h", "postgres://bench:" + secret + "@db.example:port/h", "postgres://bench:" + secret + "@db.example/h?sslmode=sometimes"} {
		err := CheckTarget(bad)
		checkMessage(t, fmt.Sprintf("CheckTarget(%q)", bad), err)
		if s, _, err := Open(context.Background(), bad); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", bad)
		} else {
			checkMessage(t, "open", err)
		}
	}
}

// Every connection is bounded, in the ctxbench schema, and named; a
// connect_timeout in the URL is kept.
func TestPgConfig(t *testing.T) {
	cfg, err := pgConfig("postgres://db.example/h")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ConnectTimeout != connectTimeout || cfg.RuntimeParams["search_path"] != pgSchema || cfg.RuntimeParams["application_name"] != "ctxbench" {
		t.Errorf("timeout %v, params %v", cfg.ConnectTimeout, cfg.RuntimeParams)
	}
	cfg, err = pgConfig("postgres://db.example/h?connect_timeout=30&application_name=fleet&search_path=public")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ConnectTimeout != 30*time.Second || cfg.RuntimeParams["search_path"] != pgSchema || cfg.RuntimeParams["application_name"] != "fleet" {
		t.Errorf("timeout %v, params %v", cfg.ConnectTimeout, cfg.RuntimeParams)
	}
}

// bind numbers the placeholders for PostgreSQL and leaves SQLite's.
func TestBind(t *testing.T) {
	q := qInsertBlocks + valuesRows(2, 3)
	if got, want := postgresDialect.bind(q), qInsertBlocks+"($1, $2, $3), ($4, $5, $6)"; got != want {
		t.Errorf("postgres: %q, want %q", got, want)
	}
	if got := sqliteDialect.bind(q); got != q {
		t.Errorf("sqlite: %q", got)
	}
}

// doc.go's PostgreSQL schema is the schema: every statement of the
// PostgreSQL migrations appears in it verbatim (up to white space).
func TestPostgresSchemaDocumented(t *testing.T) {
	text := flatDoc(t)
	for _, m := range pgMigrations {
		for _, stmt := range strings.Split(m.sql, ";") {
			if strings.TrimSpace(stmt) != "" && !strings.Contains(text, flat(stmt)+";") {
				t.Errorf("doc.go lacks:\n%s;", strings.TrimSpace(stmt))
			}
		}
	}
}
