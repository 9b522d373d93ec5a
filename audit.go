package refactor

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Audit is the write-ahead trail of runs (package store). Every run is a
// row, committed before anything happens to the image; a release commits
// both sources before the compile (BeginRelease), so that a crash can be
// reconciled and every change explained and reverted.
type Audit interface {
	Create(ctx context.Context, r Run) error
	Update(ctx context.Context, r Run) error
	// BeginRelease is the write-ahead record: both sources of the method
	// and every helper of the set (Run.Helpers: added by a refactoring,
	// removed by a revert), committed before anything is compiled.
	BeginRelease(ctx context.Context, id, originalSource, originalProtocol, finalSource string, helpers []Helper) error
	// SetStage records the stage a run in progress has reached (the
	// StageX constants), for anyone following the run by its id.
	SetStage(ctx context.Context, id, stage string) error
	Get(ctx context.Context, id string) (Run, error)
	MarkReverted(ctx context.Context, id string, at time.Time) error
	Unsettled(ctx context.Context) ([]Run, error)
	Reconcile(ctx context.Context, id string, status Status, note string) error
}

// History is the audit trail as its readers see it. Get answers NotFound
// for an unknown id; List answers InvalidRequest for a bad query.
type History interface {
	List(ctx context.Context, q ListQuery) (Page, error)
	Get(ctx context.Context, id string) (Run, error)
}

// Status is where a run stands. The write-ahead protocol of a release is
// running → releasing → released | rolled_back | restore_failed (a verify
// run: → verified | rolled_back | restore_failed); a run that
// ends before the compile goes running → failed | proposed | unchanged. A crash leaves
// the row in running or releasing; start-up reconciliation settles every
// unsettled row (running, releasing, restore_failed) to released,
// not_released, rolled_back or conflict by reading the image.
type Status string

// The status vocabulary (the API's "outcome").
const (
	// StatusQueued: in a pool of workers (DATABASE_URL), the run waits in
	// the durable queue for an idle worker; nothing has happened to any
	// image. Its worker and image are empty until a worker takes it.
	StatusQueued Status = "queued"
	// StatusRunning: the pipeline is working (prefetch, review, write,
	// validation; the row's stage says which); nothing has been compiled
	// into the image.
	StatusRunning Status = "running"
	// StatusReleasing: write-ahead record committed by BeginRelease; the
	// original and final sources are on disk and a compile into the image
	// is about to happen or is under way. A row seen here at start-up was
	// interrupted by a crash and must be reconciled.
	StatusReleasing Status = "releasing"
	// StatusReleased: final_source is compiled into the image and verified
	// (released_at set). For a revert run: the original code is back.
	StatusReleased Status = "released"
	// StatusProposed: approved but deliberately not compiled (dry_run);
	// final_source holds the proposal.
	StatusProposed Status = "proposed"
	// StatusUnchanged: the review found nothing worth changing (LOW, no
	// issues); the run ended before any candidate; the image holds what it
	// held.
	StatusUnchanged Status = "unchanged"
	// StatusFailed: the run ended with an error (error_code, error_message),
	// e.g. not_approved, method_changed, timeout, before anything was
	// compiled: the image holds what it held.
	StatusFailed Status = "failed"
	// StatusRolledBack: the release began (final_source may have been
	// compiled), then it was undone (tests regressed, the read-back differed,
	// the image connection died) and the original source is back in the
	// image, confirmed by reading it.
	StatusRolledBack Status = "rolled_back"
	// StatusNotReleased: reconciliation found the original source in the
	// image: the crash happened before the compile took effect, or the run
	// was interrupted before its release began (nothing was compiled).
	StatusNotReleased Status = "not_released"
	// StatusConflict: reconciliation found neither the original nor the final
	// source in the image; an operator must look (see notes).
	StatusConflict Status = "conflict"
	// StatusReverted: the run was released and a later revert run (whose
	// revert_of names this run) put the original source back; reverted_at set.
	StatusReverted Status = "reverted"
	// StatusRestoreFailed: final_source was compiled and the release was
	// being undone, but the original could not be put back and confirmed
	// within the release budget (the image connection stayed down): the
	// image may hold final_source. Both sources are in the row;
	// restore_failed is set. Start-up reconciliation reads the image and
	// finishes the rollback.
	StatusRestoreFailed Status = "restore_failed"
	// StatusCanceled: the run was stopped on request before its release
	// began (POST /api/v1/refactorings/{id}/cancel, or its caller cancelled
	// it); error_code is canceled. Nothing was compiled: the image holds
	// what it held.
	StatusCanceled Status = "canceled"
	// StatusVerified: a verify run (verify set) compiled final_source, its
	// tests after the compile showed no regression, and the original was
	// put back and confirmed by reading it: the image holds what it held,
	// and final_source is a proposal proven by both test reports. A verify
	// run that does not get there ends like a release that does not:
	// rolled_back, restore_failed (reconciled to rolled_back), failed…
	StatusVerified Status = "verified"
)

// statuses lists the vocabulary, for validation and API documentation.
func statuses() []Status {
	return []Status{StatusQueued, StatusRunning, StatusReleasing, StatusReleased, StatusProposed, StatusUnchanged,
		StatusFailed, StatusRolledBack, StatusNotReleased, StatusConflict, StatusReverted, StatusRestoreFailed,
		StatusCanceled, StatusVerified}
}

// Unsettled reports whether a row in status s still needs start-up
// reconciliation: its run was interrupted, or the image may not hold what
// the run meant to leave there.
func (s Status) Unsettled() bool {
	return s == StatusRunning || s == StatusReleasing || s == StatusRestoreFailed
}

// Valid reports whether s is in the vocabulary.
func (s Status) Valid() bool {
	for _, v := range statuses() {
		if s == v {
			return true
		}
	}
	return false
}

// RunKind tells a refactoring from a revert.
type RunKind string

// The run kinds.
const (
	// RunKindRefactor: a refactoring request (POST /api/v1/refactor).
	RunKindRefactor RunKind = "refactor"
	// RunKindRevert: the undoing of an earlier released run, named by RevertOf
	// (POST /api/v1/refactorings/{id}/revert). Its OriginalSource is what the
	// image held before the revert, its FinalSource what the revert restores.
	RunKindRevert RunKind = "revert"
)

// Valid reports whether k is a known kind.
func (k RunKind) Valid() bool { return k == RunKindRefactor || k == RunKindRevert }

// Run is one row of the audit trail, returned as is by
// GET /api/v1/refactorings/{id}.
//
// JSON: every key is always present. Times are UTC, RFC 3339 with exactly
// three fractional digits ("2025-01-02T15:04:05.000Z"); unset nullable times
// are null. JSON documents (review, verdict, models, stages, tests_before,
// tests_after, rounds) are embedded as JSON and are null when absent. The store keeps
// times at millisecond precision.
type Run struct {
	ID            string  `json:"id"`
	Kind          RunKind `json:"kind"`
	RevertOf      string  `json:"revert_of"` // id of the undone run; "" unless Kind is revert
	RequestID     string  `json:"request_id"`
	ClassName     string  `json:"class_name"`
	Selector      string  `json:"selector"`
	IsClassMethod bool    `json:"is_class_method"`
	DryRun        bool    `json:"dry_run"`
	// Verify: the run was to put the original back after its release and
	// tests (a verify run); reconciliation never leaves its final source in
	// the image.
	Verify   bool   `json:"verify"`
	RunTests bool   `json:"run_tests"` // whether the method's tests ran around the release
	Status   Status `json:"status"`
	// Stage is the stage the run is in while it runs (prefetch, review,
	// write, validate, release), then the last one it reached; "" before
	// the first.
	Stage string `json:"stage"`
	// Worker names the instance that ran the run (WORKER_ID) and Image the
	// image it ran on; both empty while the run is queued.
	Worker string `json:"worker"`
	Image  string `json:"image"`
	// TraceID is the run's OpenTelemetry trace id (32 hex digits), empty
	// when none was made.
	TraceID      string `json:"trace_id"`
	ErrorCode    string `json:"error_code"` // an error Kind of the domain, "" on success
	ErrorMessage string `json:"error_message"`
	// Notes is append-only, written by Reconcile (operator-facing remarks).
	Notes            string          `json:"notes"`
	OriginalSource   string          `json:"original_source"`
	OriginalProtocol string          `json:"original_protocol"`
	FinalSource      string          `json:"final_source"`
	Review           json.RawMessage `json:"review"`
	Verdict          json.RawMessage `json:"verdict"`
	Iterations       int             `json:"iterations"`
	ModelCalls       int             `json:"model_calls"`
	InputTokens      int64           `json:"input_tokens"`
	OutputTokens     int64           `json:"output_tokens"`
	Models           json.RawMessage `json:"models"` // model id per role
	Stages           json.RawMessage `json:"stages"` // per-stage durations
	TestsBefore      json.RawMessage `json:"tests_before"`
	TestsAfter       json.RawMessage `json:"tests_after"`
	// Helpers are the new methods of the set, with their sources: for a
	// refactoring, those it adds beside final_source (installed before
	// it); for a revert, those it removes (the reverted run's). Empty when
	// the change is the method alone.
	Helpers []Helper `json:"helpers"`
	// Rounds are the passes of the run's validation loop, as its answer
	// lists them (a JSON list of Round: candidate, helper methods, check
	// errors, verdict); null for a run that ended before a round, for a
	// run still in progress, and in the pages of GET /api/v1/refactorings,
	// which leave them out to stay small.
	Rounds json.RawMessage `json:"rounds"`
	// Equivalence is the run's last comparison of the original and a
	// candidate (see Equivalence); null when none was made.
	Equivalence json.RawMessage `json:"equivalence"`
	// RestoreFailed: a rollback to the original source did not succeed.
	RestoreFailed bool      `json:"restore_failed"`
	CreatedAt     time.Time `json:"created_at"`
	// StartedAt is when a worker took the run: CreatedAt for a run that
	// never waited; later for one that waited in a pool's queue; nil while
	// it waits.
	StartedAt  *time.Time `json:"started_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	FinishedAt *time.Time `json:"finished_at"`
	ReleasedAt *time.Time `json:"released_at"`
	RevertedAt *time.Time `json:"reverted_at"`
	// NotRecorded: the run is over and this is its outcome as the service
	// holds it in memory, but the audit trail refused the write (a full or
	// read-only store); the row is written as soon as the store takes
	// writes again. Never stored: the store's rows are recorded.
	NotRecorded bool `json:"not_recorded,omitempty"`
}

// Page sizes of List.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// ListQuery selects a page of runs, newest first. Zero values mean "no filter".
type ListQuery struct {
	ClassName string // exact class name
	Status    Status // the API's "outcome" filter
	Worker    string // exact worker (WORKER_ID)
	Limit     int    // 0 → DefaultLimit; above MaxLimit → MaxLimit
	Cursor    string // Page.NextCursor of the previous page; "" for the first
}

// Page is one page of List. NextCursor is "" on the last page.
type Page struct {
	Runs       []Run  `json:"runs"`
	NextCursor string `json:"next_cursor"`
}

// jsonTimeLayout is the wire form of a run's times: UTC, RFC 3339, exactly
// three fractional digits.
const jsonTimeLayout = "2006-01-02T15:04:05.000Z07:00"

func formatTime(t time.Time) string { return t.UTC().Format(jsonTimeLayout) }

// runAlias has Run's fields without its methods.
type runAlias Run

// runWire is Run on the wire: its own time fields are shallower than the
// embedded ones, so encoding/json uses them instead of time.Time's format.
type runWire struct {
	*runAlias
	CreatedAt  string  `json:"created_at"`
	StartedAt  *string `json:"started_at"`
	UpdatedAt  string  `json:"updated_at"`
	FinishedAt *string `json:"finished_at"`
	ReleasedAt *string `json:"released_at"`
	RevertedAt *string `json:"reverted_at"`

	Helpers []Helper `json:"helpers"` // never null
}

// MarshalJSON writes times as RFC 3339 in UTC with milliseconds.
func (r Run) MarshalJSON() ([]byte, error) {
	return json.Marshal(runWire{
		runAlias:   (*runAlias)(&r),
		CreatedAt:  formatTime(r.CreatedAt),
		StartedAt:  formatOptional(r.StartedAt),
		UpdatedAt:  formatTime(r.UpdatedAt),
		FinishedAt: formatOptional(r.FinishedAt),
		ReleasedAt: formatOptional(r.ReleasedAt),
		RevertedAt: formatOptional(r.RevertedAt),
		Helpers:    HelperList(r.Helpers),
	})
}

// UnmarshalJSON reads what MarshalJSON writes (for API clients and tests).
func (r *Run) UnmarshalJSON(b []byte) error {
	w := runWire{runAlias: (*runAlias)(r)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	r.Helpers = w.Helpers
	return w.times(r)
}

func (w runWire) times(r *Run) error {
	var err error
	if r.CreatedAt, err = parseWire(w.CreatedAt); err != nil {
		return fmt.Errorf("created_at: %w", err)
	}
	if r.StartedAt, err = parseOptional(w.StartedAt); err != nil {
		return fmt.Errorf("started_at: %w", err)
	}
	if r.UpdatedAt, err = parseWire(w.UpdatedAt); err != nil {
		return fmt.Errorf("updated_at: %w", err)
	}
	if r.FinishedAt, err = parseOptional(w.FinishedAt); err != nil {
		return fmt.Errorf("finished_at: %w", err)
	}
	if r.ReleasedAt, err = parseOptional(w.ReleasedAt); err != nil {
		return fmt.Errorf("released_at: %w", err)
	}
	if r.RevertedAt, err = parseOptional(w.RevertedAt); err != nil {
		return fmt.Errorf("reverted_at: %w", err)
	}
	return nil
}

// parseWire accepts any RFC 3339 time, not only the store's own layout.
func parseWire(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t.UTC(), err
}

func formatOptional(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := formatTime(*t)
	return &s
}

func parseOptional(s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := parseWire(*s)
	if err != nil {
		return nil, err
	}
	return &t, nil
}
