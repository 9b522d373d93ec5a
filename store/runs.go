package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// runColumns is the column order of insertRun and scanRun.
const runColumns = rowColumns + ", rounds"

// rowColumns are runColumns but the rounds, the one column a List page
// leaves out (list.go).
const rowColumns = `id, kind, revert_of, request_id, class_name, selector,
	is_class_method, dry_run, verify, run_tests, status, stage, error_code, error_message, notes,
	original_source, original_protocol, final_source, review, verdict,
	iterations, model_calls, input_tokens, output_tokens, models, stages,
	tests_before, tests_after, restore_failed,
	created_at, updated_at, finished_at, released_at, reverted_at,
	worker, image, started_at, trace_id, helpers, equivalence`

// Create inserts a new run. CreatedAt defaults to now; UpdatedAt is set to
// CreatedAt. A revert run's RevertOf must name an existing run. Returns
// ErrDuplicate when the id exists, ErrInvalid or ErrTooLarge for bad fields.
func (s *Store) Create(ctx context.Context, r refactor.Run) error {
	if err := errors.Join(checkIdentity(r), checkRun(r)); err != nil {
		return fmt.Errorf("store: create run %q: %w", r.ID, err)
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = time.Now()
	}
	r.UpdatedAt = r.CreatedAt
	values, err := insertValues(r)
	if err != nil {
		return fmt.Errorf("store: create run %q: %w", r.ID, err)
	}
	// One INSERT: the reads before it only explain a refusal (rows are
	// never deleted, so a revert_of found stays found), and an id taken
	// between the check and the insert is refused by the primary key.
	err = s.inStatement(ctx, "create", r.ID, func(tx *txn) error {
		if err := checkAbsent(ctx, tx, r.ID); err != nil {
			return err
		}
		if r.RevertOf != "" {
			if _, err := statusOf(ctx, tx, r.RevertOf); err != nil {
				return fmt.Errorf("revert_of: %w", err)
			}
		}
		_, err := tx.ExecContext(ctx, insertRun, values...)
		return duplicate(err)
	})
	if err != nil {
		return fmt.Errorf("store: create run %q: %w", r.ID, err)
	}
	return nil
}

const insertRun = "INSERT INTO runs (" + runColumns + ") VALUES (" +
	"?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

// insertValues are insertRun's arguments for r, in runColumns' order.
func insertValues(r refactor.Run) ([]any, error) {
	helpers, err := helpersDoc(r.Helpers)
	if err != nil {
		return nil, err
	}
	return append(insertArgs(r), helpers, nullableDoc(r.Equivalence), nullableDoc(r.Rounds)), nil
}

func insertArgs(r refactor.Run) []any {
	return []any{r.ID, string(r.Kind), nullableText(r.RevertOf), r.RequestID, r.ClassName, r.Selector,
		r.IsClassMethod, r.DryRun, r.Verify, r.RunTests, string(r.Status), r.Stage, r.ErrorCode, r.ErrorMessage, r.Notes,
		r.OriginalSource, r.OriginalProtocol, r.FinalSource, nullableDoc(r.Review), nullableDoc(r.Verdict),
		r.Iterations, r.ModelCalls, r.InputTokens, r.OutputTokens, nullableDoc(r.Models), nullableDoc(r.Stages),
		nullableDoc(r.TestsBefore), nullableDoc(r.TestsAfter), r.RestoreFailed,
		formatTime(r.CreatedAt), formatTime(r.UpdatedAt), nullableTime(r.FinishedAt),
		nullableTime(r.ReleasedAt), nullableTime(r.RevertedAt), r.Worker, r.Image, nullableTime(r.StartedAt), r.TraceID}
}

// sqlitePrimaryKey is SQLite's extended result code of a primary key
// violation (SQLITE_CONSTRAINT_PRIMARYKEY).
const sqlitePrimaryKey = 1555

// duplicate names a primary key taken between the check and the insert
// (two statements, no transaction around them: Store.inStatement).
func duplicate(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return fmt.Errorf("%w: %s", ErrDuplicate, pgErr.Message)
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code() == sqlitePrimaryKey {
		return fmt.Errorf("%w: %s", ErrDuplicate, se.Error())
	}
	return err
}

func checkAbsent(ctx context.Context, tx *txn, id string) error {
	_, err := statusOf(ctx, tx, id)
	switch {
	case err == nil:
		return ErrDuplicate
	case errors.Is(err, ErrNotFound):
		return nil
	default:
		return err
	}
}

// updateRun leaves the identity (id, kind, revert_of, created_at) alone, and
// the fields owned by other operations: notes (Reconcile) and reverted_at
// (MarkReverted). An empty source or protocol keeps the stored one, so a Run
// value that predates BeginRelease cannot erase the write-ahead record; an
// empty stage keeps the stored one (SetStage writes it).
const updateRun = `UPDATE runs SET
	request_id = ?, class_name = ?, selector = ?, is_class_method = ?, dry_run = ?, verify = ?, run_tests = ?,
	status = ?, stage = COALESCE(NULLIF(?, ''), stage), error_code = ?, error_message = ?,
	original_source = COALESCE(NULLIF(?, ''), original_source),
	original_protocol = COALESCE(NULLIF(?, ''), original_protocol),
	final_source = COALESCE(NULLIF(?, ''), final_source),
	review = ?, verdict = ?, iterations = ?, model_calls = ?, input_tokens = ?, output_tokens = ?,
	models = ?, stages = ?, tests_before = ?, tests_after = ?, restore_failed = ?,
	updated_at = ?, finished_at = ?, released_at = ?,
	worker = COALESCE(NULLIF(?, ''), worker), image = COALESCE(NULLIF(?, ''), image),
	started_at = COALESCE(?, started_at), trace_id = COALESCE(NULLIF(?, ''), trace_id), helpers = COALESCE(?, helpers),
	equivalence = COALESCE(?, equivalence), rounds = COALESCE(?, rounds)
	WHERE id = ? AND status <> 'reverted'`

// Update writes every mutable field of the run r.ID and sets updated_at to
// now. It never changes id, kind, revert_of, created_at, notes or
// reverted_at, and an empty OriginalSource, OriginalProtocol, FinalSource,
// Helpers, Equivalence or Rounds keeps the stored value. Returns ErrNotFound when absent, ErrWrongStatus
// for a reverted run (reverted is final), ErrInvalid when r.Status is
// reverted (only MarkReverted reverts).
func (s *Store) Update(ctx context.Context, r refactor.Run) error {
	if err := checkUpdate(r); err != nil {
		return fmt.Errorf("store: update run %q: %w", r.ID, err)
	}
	helpers, err := helpersDoc(r.Helpers)
	if err != nil {
		return fmt.Errorf("store: update run %q: %w", r.ID, err)
	}
	err = s.inStatement(ctx, "update", r.ID, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, updateRun,
			r.RequestID, r.ClassName, r.Selector, r.IsClassMethod, r.DryRun, r.Verify, r.RunTests,
			string(r.Status), r.Stage, r.ErrorCode, r.ErrorMessage, r.OriginalSource, r.OriginalProtocol, r.FinalSource,
			nullableDoc(r.Review), nullableDoc(r.Verdict), r.Iterations, r.ModelCalls, r.InputTokens,
			r.OutputTokens, nullableDoc(r.Models), nullableDoc(r.Stages), nullableDoc(r.TestsBefore),
			nullableDoc(r.TestsAfter), r.RestoreFailed, formatTime(time.Now()), nullableTime(r.FinishedAt),
			nullableTime(r.ReleasedAt), r.Worker, r.Image, nullableTime(r.StartedAt), r.TraceID, helpers, nullableDoc(r.Equivalence), nullableDoc(r.Rounds), r.ID)
		return explainMiss(ctx, tx, r.ID, res, err, ErrWrongStatus)
	})
	if err != nil {
		return fmt.Errorf("store: update run %q: %w", r.ID, err)
	}
	return nil
}

func checkUpdate(r refactor.Run) error {
	if r.ID == "" {
		return fmt.Errorf("%w: empty id", ErrInvalid)
	}
	if r.Status == refactor.StatusReverted {
		return fmt.Errorf("%w: status %q is set only by MarkReverted", ErrInvalid, r.Status)
	}
	return checkRun(r)
}

// BeginRelease is the write-ahead step of a release: it records the original
// source and protocol (what to restore), the final source (what is about
// to be compiled) and the helpers of the set (added beside it, or removed
// by a revert), and moves the run from running to releasing, in one
// transaction that is on stable storage when BeginRelease returns nil (the
// one commit of a run that is synced: see writeahead.go). Only then may the
// caller compile. Returns ErrNotFound, or ErrWrongStatus when
// the run is not running.
func (s *Store) BeginRelease(ctx context.Context, id, originalSource, originalProtocol, finalSource string, helpers []refactor.Helper) error {
	doc, err := releaseHelpers(helpers)
	if err == nil {
		err = checkRelease(originalSource, originalProtocol, finalSource)
	}
	if err != nil {
		return fmt.Errorf("store: begin release of run %q: %w", id, err)
	}
	err = s.inSyncedTx(ctx, "begin_release", id, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, beginReleaseRun,
			originalSource, originalProtocol, finalSource, doc, formatTime(time.Now()), id)
		return explainMiss(ctx, tx, id, res, err, ErrWrongStatus)
	})
	if err != nil {
		return fmt.Errorf("store: begin release of run %q: %w", id, err)
	}
	return nil
}

// SetStage records the stage a run in progress has reached. Only a run
// still in progress (running or releasing) moves: a settled row keeps the
// stage it ended in. Returns ErrNotFound, or ErrWrongStatus for a settled
// run.
func (s *Store) SetStage(ctx context.Context, id, stage string) error {
	if err := checkSizes(map[string]sized{"stage": {len(stage), MaxNameBytes}}); err != nil {
		return fmt.Errorf("store: set stage of run %q: %w", id, err)
	}
	err := s.inStatement(ctx, "set_stage", id, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, setStageRun, stage, formatTime(time.Now()), id)
		return explainMiss(ctx, tx, id, res, err, ErrWrongStatus)
	})
	if err != nil {
		return fmt.Errorf("store: set stage of run %q: %w", id, err)
	}
	return nil
}

// checkRelease insists on both sources: reconciliation after a crash
// compares the image against them, and rollback restores the original.
func checkRelease(original, protocol, final string) error {
	if original == "" || final == "" {
		return fmt.Errorf("%w: original and final source are both required", ErrInvalid)
	}
	return checkSources(original, protocol, final)
}

// MarkReverted records that the released run id has been undone: status
// reverted, reverted_at = at (now when zero). The update is conditional on
// status released, so of two concurrent reverts exactly one succeeds; the
// other gets ErrNotRevertible, as does any run that is not released.
func (s *Store) MarkReverted(ctx context.Context, id string, at time.Time) error {
	if at.IsZero() {
		at = time.Now()
	}
	err := s.inSyncedTx(ctx, "mark_reverted", id, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, markRevertedRun, formatTime(at), formatTime(time.Now()), id)
		return explainMiss(ctx, tx, id, res, err, ErrNotRevertible)
	})
	if err != nil {
		return fmt.Errorf("store: mark run %q reverted: %w", id, err)
	}
	return nil
}

// reconcileRun appends to notes with a newline separator and sets
// released_at only for released, keeping any earlier timestamps.
const reconcileRun = `UPDATE runs SET status = ?1,
	notes = CASE WHEN notes = '' THEN ?2 ELSE notes || ?5 || ?2 END,
	released_at = CASE WHEN ?1 = 'released' THEN COALESCE(released_at, ?3) ELSE released_at END,
	finished_at = COALESCE(finished_at, ?3), updated_at = ?3
	WHERE id = ?4 AND status IN ('running', 'releasing', 'restore_failed')`

// Reconcile settles an unsettled run (running, releasing or
// restore_failed; see Status.Unsettled), after the caller has read the
// method from the image: status is released (final source found;
// released_at set), not_released (original found, or interrupted before its
// release), rolled_back (the original is back after a failed restore) or
// conflict (neither source). note is appended, timestamped, to the run's
// notes for the operator. Returns ErrNotFound, ErrWrongStatus when the run
// is settled already, ErrInvalid for another status.
func (s *Store) Reconcile(ctx context.Context, id string, status refactor.Status, note string) error {
	if err := checkReconcile(status, note); err != nil {
		return fmt.Errorf("store: reconcile run %q: %w", id, err)
	}
	at := time.Now()
	now, line := formatTime(at), reconcileNote(at, status, note)
	err := s.inTx(ctx, "reconcile", id, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, reconcileRun, string(status), line, now, id, "\n")
		return explainMiss(ctx, tx, id, res, err, ErrWrongStatus)
	})
	if err != nil {
		return fmt.Errorf("store: reconcile run %q: %w", id, err)
	}
	return nil
}

// reconcileNote is the line Reconcile appends to a run's notes.
func reconcileNote(at time.Time, status refactor.Status, note string) string {
	line := fmt.Sprintf("%s reconciled as %s", formatTime(at), status)
	if note != "" {
		line += ": " + note
	}
	return line
}

func checkReconcile(status refactor.Status, note string) error {
	switch status {
	case refactor.StatusReleased, refactor.StatusNotReleased, refactor.StatusConflict, refactor.StatusRolledBack:
	default:
		return fmt.Errorf("%w: reconcile to %q (want released, not_released, rolled_back or conflict)", ErrInvalid, status)
	}
	return checkSizes(map[string]sized{"note": {len(note), MaxTextBytes}})
}

// explainMiss turns a conditional UPDATE that matched no row into
// ErrNotFound or, when the row exists in another status, into wrong.
func explainMiss(ctx context.Context, tx *txn, id string, res sql.Result, err error, wrong error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil || n > 0 {
		return err
	}
	status, err := statusOf(ctx, tx, id)
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: status is %s", wrong, status)
}

func statusOf(ctx context.Context, tx *txn, id string) (refactor.Status, error) {
	var st refactor.Status
	err := tx.QueryRowContext(ctx, statusOfRun, id).Scan(&st)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return st, err
}

// Get returns the run id, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (refactor.Run, error) {
	r, err := scanRun(s.getRow(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return refactor.Run{}, refactor.Wrap(refactor.NotFound, ErrNotFound, "no refactoring with id %q", id)
	}
	if err != nil {
		return refactor.Run{}, fmt.Errorf("store: get run %q: %w", id, s.d.classify(err))
	}
	return r, nil
}

// Unsettled returns the runs start-up reconciliation must settle (running,
// releasing, restore_failed), oldest first.
func (s *Store) Unsettled(ctx context.Context) ([]refactor.Run, error) {
	runs, err := s.query(ctx, "SELECT "+runColumns+
		" FROM runs WHERE status IN ('running', 'releasing', 'restore_failed') ORDER BY created_at, id")
	if err != nil {
		return nil, fmt.Errorf("store: list unsettled runs: %w", s.d.classify(err))
	}
	return runs, nil
}

// query runs a SELECT of runColumns on the read pool.
func (s *Store) query(ctx context.Context, q string, args ...any) ([]refactor.Run, error) {
	rows, err := s.r.QueryContext(ctx, s.d.bind(q), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close() //nolint:errcheck // rows.Err below reports what matters
	var runs []refactor.Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, rows.Err()
}

type scanner interface{ Scan(dest ...any) error }

// rowText holds the nullable and time columns as the database has them.
type rowText struct {
	revertOf                                sql.NullString
	review, verdict, models, stages, tb, ta sql.NullString
	created, updated                        string
	finished, released, reverted, started   sql.NullString
	helpers, equivalence, rounds            sql.NullString
}

func scanRun(sc scanner) (refactor.Run, error) {
	var r refactor.Run
	var t rowText
	err := sc.Scan(&r.ID, &r.Kind, &t.revertOf, &r.RequestID, &r.ClassName, &r.Selector,
		&r.IsClassMethod, &r.DryRun, &r.Verify, &r.RunTests, &r.Status, &r.Stage, &r.ErrorCode, &r.ErrorMessage, &r.Notes,
		&r.OriginalSource, &r.OriginalProtocol, &r.FinalSource, &t.review, &t.verdict,
		&r.Iterations, &r.ModelCalls, &r.InputTokens, &r.OutputTokens, &t.models, &t.stages,
		&t.tb, &t.ta, &r.RestoreFailed, &t.created, &t.updated, &t.finished, &t.released, &t.reverted,
		&r.Worker, &r.Image, &t.started, &r.TraceID, &t.helpers, &t.equivalence, &t.rounds)
	if err != nil {
		return refactor.Run{}, err
	}
	return t.into(r)
}

func (t rowText) into(r refactor.Run) (refactor.Run, error) {
	r.RevertOf = t.revertOf.String
	r.Review, r.Verdict = rawDoc(t.review), rawDoc(t.verdict)
	r.Models, r.Stages = rawDoc(t.models), rawDoc(t.stages)
	r.TestsBefore, r.TestsAfter = rawDoc(t.tb), rawDoc(t.ta)
	r.Rounds, r.Equivalence = rawDoc(t.rounds), rawDoc(t.equivalence)
	var err error
	if t.helpers.Valid {
		if err = json.Unmarshal([]byte(t.helpers.String), &r.Helpers); err != nil {
			return refactor.Run{}, fmt.Errorf("run %q: helpers: %w", r.ID, err)
		}
	}
	if r.CreatedAt, err = parseStored(t.created); err != nil {
		return refactor.Run{}, fmt.Errorf("run %q: created_at: %w", r.ID, err)
	}
	if r.UpdatedAt, err = parseStored(t.updated); err != nil {
		return refactor.Run{}, fmt.Errorf("run %q: updated_at: %w", r.ID, err)
	}
	for _, f := range []struct {
		name string
		in   sql.NullString
		out  **time.Time
	}{{"finished_at", t.finished, &r.FinishedAt}, {"released_at", t.released, &r.ReleasedAt},
		{"reverted_at", t.reverted, &r.RevertedAt}, {"started_at", t.started, &r.StartedAt}} {
		if *f.out, err = nullTime(f.in); err != nil {
			return refactor.Run{}, fmt.Errorf("run %q: %s: %w", r.ID, f.name, err)
		}
	}
	return r, nil
}

func rawDoc(s sql.NullString) json.RawMessage {
	if !s.Valid {
		return nil
	}
	return json.RawMessage(s.String)
}

func nullTime(s sql.NullString) (*time.Time, error) {
	if !s.Valid {
		return nil, nil
	}
	t, err := parseStored(s.String)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

func nullableTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return formatTime(*t)
}

func nullableText(s string) any {
	if s == "" {
		return nil
	}
	return s
}
