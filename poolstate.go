package refactor

import "time"

// PoolState is a pool's queue and workers as its database has them at
// one moment (GET /api/v1/workers, the console).
type PoolState struct {
	// Queued counts the runs waiting in the queue for a worker.
	Queued int `json:"queued"`
	// LiveWorkers counts the workers that take runs: a heartbeat within
	// the lease, not stopping.
	LiveWorkers int `json:"live_workers"`
	// Workers are the workers the pool knows of, by id, at most
	// MaxPoolWorkersListed; a worker lost past its lease is listed until
	// another worker takes its runs back.
	Workers []PoolWorker `json:"workers"`
}

// MaxPoolWorkersListed bounds PoolState.Workers.
const MaxPoolWorkersListed = 100

// PoolWorker is one worker of a pool.
type PoolWorker struct {
	ID    string `json:"id"`    // its WORKER_ID
	Image string `json:"image"` // the image it runs on
	// StartedAt is when it joined the pool, HeartbeatAt its last sign of
	// life (UTC).
	StartedAt   time.Time `json:"started_at"`
	HeartbeatAt time.Time `json:"heartbeat_at"`
	// Stopping: it is shutting down and takes no new run.
	Stopping bool `json:"stopping"`
	// Live: its heartbeat is within the lease and it is not stopping.
	Live bool `json:"live"`
	// Running is the id of the run it is working on; "" when idle.
	Running string `json:"running"`
}
