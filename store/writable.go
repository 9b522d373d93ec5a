package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"

	refactor "github.com/pharo-refactor/refactord"
)

// SQLite's primary result codes that say the file system refuses the
// write (https://sqlite.org/rescode.html): the database is intact, the
// store takes writes again once space is freed or the mount is writable.
const (
	sqliteReadOnly = 8
	sqliteIOErr    = 10
	sqliteFull     = 13
	sqliteCantOpen = 14
)

// storageRefused classifies an error of the database's storage — a full
// or read-only DATA_DIR, PostgreSQL out of disk or in read-only mode — as
// store_unavailable: not a bug of the service, and over once the operator
// frees space. Any other error is returned as it is.
func storageRefused(err error) error {
	if err == nil || refactor.IsKind(err, refactor.StoreUnavailable) {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteReadOnly, sqliteIOErr, sqliteFull, sqliteCantOpen:
			return refactor.Wrap(refactor.StoreUnavailable, err,
				"the audit trail's storage (DATA_DIR) refuses writes (full or read-only); nothing was changed; retry once space is freed")
		}
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 53: insufficient resources (53100 disk full); 25006: a
		// read-only transaction (a hot standby, default_transaction_read_only).
		if strings.HasPrefix(pgErr.Code, "53") || pgErr.Code == "25006" {
			return refactor.Wrap(refactor.StoreUnavailable, err,
				"PostgreSQL (DATABASE_URL), which holds the audit trail, refuses writes (out of space or read-only); nothing was changed; retry later")
		}
	}
	return err
}

// writeState remembers the last write the storage refused, until a write
// or a probe succeeds: /ready says so meanwhile.
type writeState struct {
	mu        sync.Mutex
	refused   error     // nil while writes succeed
	since     time.Time // when the first refused write of this spell happened
	lastProbe time.Time
	// now is the clock the spell and the probes are timed by; nil is the
	// wall clock. Tests set it to step over probeEvery without waiting.
	now func() time.Time
}

func (w *writeState) clock() time.Time {
	if w.now != nil {
		return w.now()
	}
	return time.Now()
}

// note records the outcome of a write.
func (w *writeState) note(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err == nil:
		w.refused = nil
	case refactor.IsKind(err, refactor.StoreUnavailable):
		if w.refused == nil {
			w.since = w.clock()
		}
		w.refused = err
	}
}

// probeEvery bounds how often Writable tries the storage while it refuses
// writes.
const probeEvery = time.Second

// probeBytes is written by a probe: more than a commit of a run's row
// needs, so that a disk with a few bytes left is not taken for writable.
const probeBytes = 256 << 10

// Writable is nil while the store takes writes, else store_unavailable
// saying since when it refuses them. While it refuses them it tries the
// storage again at most once a second (a file of probeBytes beside the
// SQLite database; a ping of PostgreSQL): the state clears as soon as the
// operator has freed space, without waiting for a run to write.
func (s *Store) Writable(ctx context.Context) error {
	return s.writes.refusal(ctx, s.probe)
}

// refusal is nil while writes succeed, else the refusal and since when.
// It runs probe at most once per probeEvery; a probe that succeeds ends
// the refusal, one that fails leaves it as it was.
func (w *writeState) refusal(ctx context.Context, probe func(context.Context) error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.refused == nil {
		return nil
	}
	if now := w.clock(); now.Sub(w.lastProbe) >= probeEvery {
		w.lastProbe = now
		if probe(ctx) == nil {
			w.refused = nil
			return nil
		}
	}
	return fmt.Errorf("since %s: %w", w.since.UTC().Format(time.RFC3339), w.refused)
}

// probe tries the storage with a write that changes nothing of the trail.
func (s *Store) probe(ctx context.Context) error {
	if s.d == postgresDialect {
		return s.w.PingContext(ctx) // reached; the next write tells whether it takes writes
	}
	f, err := os.CreateTemp(s.dir, ".write-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	_, werr := f.Write(make([]byte, probeBytes))
	err = errors.Join(werr, f.Sync(), f.Close(), os.Remove(name))
	return err
}
