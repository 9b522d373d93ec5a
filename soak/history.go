package main

import (
	"sync"
	"time"
)

// History is everything a soak saw: each request and its answer, each
// fault injected, what the service and the image held at each checkpoint.
// The checker (Check) holds it against the service's promises; it is
// filled by the drivers while the soak runs and only read afterwards.
type History struct {
	Seed     int64
	Requests []Request
	Faults   []Fault
	// Outages are the times refactord was down on purpose (killed or
	// stopped, until it was ready again): a request cut by one is excused.
	Outages []Outage
	// Checkpoints are the quiet moments after each restart and at the end:
	// the rows and the image, read with no client running.
	Checkpoints []Checkpoint
	// Reverts are the reverts that answered 200, with what the image held
	// for the method right after.
	Reverts []RevertCheck
	// Health is every /health probe that did not answer 200, of
	// HealthProbes sent.
	Health       []HealthProbe
	HealthProbes int
	// LoadFrom and LoadTo bound the load phase (load.go).
	LoadFrom, LoadTo time.Time
	// Approvals are the validator requests the fake model approved (a
	// complete answer, finish reason STOP): the text of each prompt,
	// normalized (see normalize).
	Approvals []string
	// Hostile are the candidate markers of code that must never reach the
	// image (it writes globals, evaluates, reaches the OS).
	Hostile map[string]bool
	// Resources are the resource readings of the last refactord: after it
	// started (baseline) and after the load ended (final).
	Baseline, Final Resources
}

// Request is one request of a client and what it got.
type Request struct {
	ID     string // the soak's own id, also sent as X-Request-ID
	Step   int64  // the global step that issued it
	Client int
	Kind   string // run_release, history, oversized, …
	Method string
	Path   string
	Start  time.Time
	End    time.Time
	Status int
	Code   string // the problem's code, "" for a success
	// Err is how the exchange failed at the transport: a reset, an EOF
	// before the whole answer, a timeout. "" when the answer was whole.
	Err string
	// Undocumented says why the answer does not match openapi.yaml.
	Undocumented string
	// Abandoned: the client hung up on purpose (disconnect mid-run).
	Abandoned bool
	// WantStatus, when set, are the only statuses the promise allows
	// (an oversized body: 413, or 401 without a key).
	WantStatus []int
}

// Fault is one fault injected.
type Fault struct {
	Kind string
	Step int64
	At   time.Time
}

// Outage is a window in which refactord was down on purpose.
type Outage struct {
	Kind       string // refactord_sigkill, refactord_sigterm
	Step       int64
	From, To   time.Time
	ReadyAgain bool
	// Grace, for a graceful stop (SIGTERM), is how long the requests in
	// flight at From may take to get their answers; zero for a kill.
	Grace time.Duration
}

// Checkpoint is the state read at a quiet moment.
type Checkpoint struct {
	Step  int64
	Why   string // "restart after refactord_sigkill", "end"
	At    time.Time
	Rows  []Row
	Image map[string]string // method key → source, normalized
	// Initial is what the image held for each method before the soak.
	Initial map[string]string
	// RestartedAt is when refactord was started again (zero at the end):
	// rows created before it must be settled.
	RestartedAt time.Time
}

// Row is what the checker needs of an audit row.
type Row struct {
	ID          string
	Kind        string
	Method      string // key as in Checkpoint.Image
	Status      string
	Verdict     string // APPROVED, NEEDS_IMPROVEMENT or ""
	FinalSource string // normalized
	CreatedAt   time.Time
	Unsettled   bool
}

// RevertCheck is a revert that answered 200.
type RevertCheck struct {
	RequestID string
	Step      int64
	Method    string
	Want      string // the reverted run's original_source, normalized
	Got       string // the image right after, normalized
}

// HealthProbe is a /health probe that failed.
type HealthProbe struct {
	Step int64
	At   time.Time
	Err  string
}

// Resources are one reading of refactord's resources.
type Resources struct {
	Goroutines int     `json:"goroutines"`
	OpenFiles  int     `json:"open_files"`
	RSSMiB     float64 `json:"rss_mib"`
}

// recorder is the soak's History while it is being written.
type recorder struct {
	mu sync.Mutex
	h  History
}

// add changes the history under the recorder's lock.
func (r *recorder) add(change func(h *History)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	change(&r.h)
}

func (r *recorder) request(q Request) { r.add(func(h *History) { h.Requests = append(h.Requests, q) }) }

func (r *recorder) fault(kind string, step int64) {
	f := Fault{Kind: kind, Step: step, At: time.Now()}
	r.add(func(h *History) { h.Faults = append(h.Faults, f) })
}

func (r *recorder) outage(o Outage) { r.add(func(h *History) { h.Outages = append(h.Outages, o) }) }

func (r *recorder) checkpoint(c Checkpoint) {
	r.add(func(h *History) { h.Checkpoints = append(h.Checkpoints, c) })
}

func (r *recorder) revert(c RevertCheck) {
	r.add(func(h *History) { h.Reverts = append(h.Reverts, c) })
}

func (r *recorder) health(p HealthProbe) { r.add(func(h *History) { h.Health = append(h.Health, p) }) }

func (r *recorder) approval(prompt string) {
	r.add(func(h *History) { h.Approvals = append(h.Approvals, prompt) })
}

func (r *recorder) hostile(marker string) {
	r.add(func(h *History) {
		if h.Hostile == nil {
			h.Hostile = map[string]bool{}
		}
		h.Hostile[marker] = true
	})
}

// history is a copy of what was recorded so far.
func (r *recorder) history() History {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.h
	h.Requests = append([]Request(nil), h.Requests...)
	h.Faults = append([]Fault(nil), h.Faults...)
	h.Outages = append([]Outage(nil), h.Outages...)
	h.Checkpoints = append([]Checkpoint(nil), h.Checkpoints...)
	h.Reverts = append([]RevertCheck(nil), h.Reverts...)
	h.Health = append([]HealthProbe(nil), h.Health...)
	h.Approvals = append([]string(nil), h.Approvals...)
	return h
}
