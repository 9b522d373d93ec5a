package store

import "errors"

// Sentinels for errors.Is. Every error the store returns wraps one of these
// or a driver/IO error. What a client can cause is classified here, where it
// arises: an unknown id is refactor.NotFound, a query List cannot use is
// refactor.InvalidRequest; everything else is the service's own fault
// (refactor.Internal).
var (
	// ErrNotFound: no run has the given id.
	ErrNotFound = errors.New("run not found")
	// ErrDuplicate: Create was given an id that already exists.
	ErrDuplicate = errors.New("run id already exists")
	// ErrInvalid: a field or argument is outside its vocabulary or range
	// (unknown status or kind, empty id, negative count, malformed JSON).
	ErrInvalid = errors.New("invalid run data")
	// ErrTooLarge: a source, JSON document or text field exceeds its limit.
	ErrTooLarge = errors.New("run field too large")
	// ErrBadCursor: List was given a cursor it did not produce.
	ErrBadCursor = errors.New("malformed pagination cursor")
	// ErrNotRevertible: MarkReverted on a run whose status is not released
	// (never released, or already reverted by a concurrent request).
	ErrNotRevertible = errors.New("run is not revertible")
	// ErrWrongStatus: the run's current status does not allow the operation
	// (BeginRelease outside running, Reconcile outside releasing, Update of a
	// reverted run).
	ErrWrongStatus = errors.New("run status does not allow this operation")
	// ErrSchemaTooNew: the database was migrated by a newer build.
	ErrSchemaTooNew = errors.New("database schema is newer than this build")
)

// ErrUnavailable: the database (a pool's PostgreSQL) cannot be reached
// now; the operation may succeed when it returns.
var ErrUnavailable = errors.New("database unavailable")
