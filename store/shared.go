package store

import (
	"errors"
	"fmt"
	"time"

	refactor "pharo-refactor"
)

// The rules of the audit trail that do not depend on the database: the
// PostgreSQL store of a pool (store/postgres) keeps the same trail with the
// same checks, sentinels, page sizes and cursors, so that a client cannot
// tell the two apart.

// CheckCreate validates a run Create would insert.
func CheckCreate(r refactor.Run) error { return errors.Join(checkIdentity(r), checkRun(r)) }

// CheckUpdate validates a run Update would write.
func CheckUpdate(r refactor.Run) error { return checkUpdate(r) }

// CheckRelease validates BeginRelease's arguments.
func CheckRelease(original, protocol, final string) error {
	return checkRelease(original, protocol, final)
}

// CheckStage validates SetStage's argument.
func CheckStage(stage string) error {
	return checkSizes(map[string]sized{"stage": {len(stage), MaxNameBytes}})
}

// CheckReconcile validates Reconcile's arguments.
func CheckReconcile(status refactor.Status, note string) error { return checkReconcile(status, note) }

// ReconcileNote is the line Reconcile appends to a run's notes.
func ReconcileNote(at time.Time, status refactor.Status, note string) string {
	line := fmt.Sprintf("%s reconciled as %s", formatTime(at), status)
	if note != "" {
		line += ": " + note
	}
	return line
}

// PageSize is the number of runs a List page holds for q, or ErrInvalid.
func PageSize(q refactor.ListQuery) (int, error) { return pageSize(q) }

// EncodeCursor names the last run of a page.
func EncodeCursor(last refactor.Run) string { return encodeCursor(formatTime(last.CreatedAt), last.ID) }

// DecodeCursor reads a cursor EncodeCursor made, or answers ErrBadCursor.
func DecodeCursor(c string) (time.Time, string, error) {
	created, id, err := decodeCursor(c)
	if err != nil {
		return time.Time{}, "", err
	}
	t, err := parseTime(created)
	return t, id, err
}

// Paginate cuts runs (limit+1 asked for) to a page.
func Paginate(runs []refactor.Run, limit int) refactor.Page { return page(runs, limit) }

// Millis is t as the trail keeps it: UTC, milliseconds.
func Millis(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }
