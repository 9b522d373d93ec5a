package measure

// LoadResult is what the load generator (bench/loadgen) prints of one
// load. Latencies are in microseconds.
type LoadResult struct {
	Answered     int     `json:"answered"`
	Non503       int     `json:"non_503"`
	NoRetryAfter int     `json:"no_retry_after"`
	Errors       int     `json:"errors"`
	FirstError   string  `json:"first_error,omitempty"`
	Seconds      float64 `json:"seconds"`
	RPS          float64 `json:"rps"`
	Latency      Latency `json:"latency_us"`
	Health       Latency `json:"health_us"`
	// HealthNotBusy counts health answers that did not say busy: the load
	// must hit a server whose run slot is taken all along.
	HealthNotBusy int     `json:"health_not_busy"`
	HealthError   string  `json:"health_error,omitempty"`
	CPU           CPUUse  `json:"cpu"`
	Conns         int     `json:"conns"`
	HealthEveryMS float64 `json:"health_every_ms"`
}

// Latency summarises latencies, in microseconds.
type Latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// CPUUse is processor time over a load's window, in seconds, and as a
// share of one core (1.0 = one core busy all along).
type CPUUse struct {
	LoadgenSeconds float64 `json:"loadgen_s"`
	ServerSeconds  float64 `json:"server_s"`
	LoadgenCores   float64 `json:"loadgen_cores"`
	ServerCores    float64 `json:"server_cores"`
}
