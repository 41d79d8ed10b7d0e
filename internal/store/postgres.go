package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// connectTimeout bounds one connection attempt to a PostgreSQL store that
// does not answer (a host down, a port filtered): the history is a
// convenience of the run, which must not hang on it. A connect_timeout in
// the URL takes precedence.
const connectTimeout = 5 * time.Second

// hasScheme matches a target that is a URL ("scheme://..."), not a path.
var hasScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// userPassword finds the password of a URL's user information, as far as
// it can be told in a URL that does not parse: between the user's colon
// and the last '@' before the path.
var userPassword = regexp.MustCompile(`^[^:]*://[^:/@]*:([^/]*)@`)

// IsPostgres reports whether target names a PostgreSQL store: a
// postgres:// or postgresql:// URL.
func IsPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// CheckTarget says, without connecting or touching a file, whether Open
// could take target: a non-empty file path, or a PostgreSQL URL that
// parses. The error is one line and shows no password.
func CheckTarget(target string) error {
	switch {
	case target == "":
		return errors.New("no store named: give a file path or a postgres:// URL")
	case IsPostgres(target):
		if _, err := pgConfig(target); err != nil {
			// pgx's error quotes the URL (without its password).
			_, secrets := redact(target)
			return scrub(err, secrets)
		}
	case hasScheme.MatchString(target):
		shown, _ := redact(target)
		return fmt.Errorf("%s is neither a file path nor a postgres:// URL (the history is a SQLite file or a PostgreSQL database)", shown)
	}
	return nil
}

// pgConfig is the connection configuration of a PostgreSQL target. Besides
// the URL, pgx reads what libpq would (PGPASSWORD, ~/.pgpass, PGSSLMODE,
// ...), so a password need not be in the URL. Every connection gets the
// ctxbench schema as its search_path, a connect timeout unless the URL
// sets one, and an application_name unless the URL gives one, so that an
// administrator can tell ctxbench's sessions apart.
func pgConfig(target string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(target)
	if err != nil {
		return nil, err
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	cfg.RuntimeParams["search_path"] = pgSchema
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "ctxbench"
	}
	return cfg, nil
}

// openPostgres is Open of a PostgreSQL URL: connect (failing within the
// connect timeout, or when ctx ends, if the server is down), then migrate
// the ctxbench schema under an advisory lock. Nothing is ever moved aside
// or dropped: a ctxbench schema that is not ours, or is newer, is refused.
func openPostgres(ctx context.Context, target string) (*Store, error) {
	shown, secrets := redact(target)
	fail := func(err error) error {
		return scrub(fmt.Errorf("store: open %s: %w", shown, err), secrets)
	}
	cfg, err := pgConfig(target)
	if err != nil {
		return nil, fail(err)
	}
	// A password from the environment or ~/.pgpass is as secret as one in
	// the URL.
	secrets = append(secrets, cfg.Password)
	db := stdlib.OpenDB(*cfg)
	// A run holds its store open while it measures, for minutes or hours,
	// and records at the end: a connection idle that long may have been
	// dropped silently on the way (a NAT, a firewall) and would hang the
	// record until TCP gave up. Idle connections are closed instead, and the
	// record makes a new one.
	db.SetConnMaxIdleTime(time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fail(err)
	}
	if err := migrate(ctx, db, &postgresDialect); err != nil {
		db.Close()
		return nil, fail(err)
	}
	return &Store{db: db, path: shown, d: &postgresDialect, secrets: secrets}, nil
}

// redact is what a store's name is shown as: the password of a URL (in
// its user information or a password= parameter) replaced with xxxxx. It
// returns the secrets found, to be scrubbed from messages that quote them
// by other means (a driver's error may echo the URL).
func redact(target string) (shown string, secrets []string) {
	if !hasScheme.MatchString(target) {
		return target, nil
	}
	u, err := url.Parse(target)
	if err != nil {
		// Nothing of an unparsable URL can be told safe to show but its
		// scheme; what looks like its password is still scrubbed from the
		// errors that quote it (net/url's does).
		scheme, _, _ := strings.Cut(target, "://")
		if m := userPassword.FindStringSubmatch(target); m != nil {
			secrets = append(secrets, m[1])
		}
		return scheme + "://(a URL that does not parse)", secrets
	}
	if pw, ok := u.User.Password(); ok {
		secrets = append(secrets, pw, url.QueryEscape(pw), url.PathEscape(pw))
	}
	// Parameter by parameter, the rest left as written (url.Values.Encode
	// would escape host=/run/postgresql into host=%2Frun%2Fpostgresql).
	params := strings.Split(u.RawQuery, "&")
	for i, p := range params {
		k, v, _ := strings.Cut(p, "=")
		if key, err := url.QueryUnescape(k); err != nil || !strings.Contains(strings.ToLower(key), "password") {
			continue
		}
		plain, _ := url.QueryUnescape(v)
		secrets = append(secrets, v, plain)
		params[i] = k + "=xxxxx"
	}
	u.RawQuery = strings.Join(params, "&")
	return u.Redacted(), secrets
}

// scrub returns err with every secret replaced in its message, which is
// made one line (pgx lists the addresses it tried on lines of their own).
// errors.Is and errors.As still see err.
func scrub(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	return &scrubbed{err: err, secrets: secrets}
}

type scrubbed struct {
	err     error
	secrets []string
}

func (e *scrubbed) Error() string {
	msg := e.err.Error()
	for _, s := range e.secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	return strings.Join(strings.Fields(msg), " ")
}

func (e *scrubbed) Unwrap() error { return e.err }
