package pool

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// channel is the PostgreSQL notification channel a worker signals on when
// it records a run's event or answer; cancelChannel asks the worker running
// a run to cancel it. The payload is the run's id.
const (
	channel       = "refactord_run"
	cancelChannel = "refactord_cancel"
)

// fallbackPoll: a waiter also looks every so often, in case a
// notification was lost (the listening connection was being re-made).
const fallbackPoll = 500 * time.Millisecond

// listener holds one connection that LISTENs and wakes the waiters of the
// run a notification names.
type listener struct {
	db  *pgxpool.Pool
	log *zap.Logger
	// onCancel is called (on its own goroutine) for a cancel request.
	onCancel func(id string)

	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
}

func newListener(db *pgxpool.Pool, log *zap.Logger, onCancel func(id string)) *listener {
	return &listener{db: db, log: log, onCancel: onCancel, waiters: map[string]map[chan struct{}]struct{}{}}
}

// watch answers a channel that receives (without blocking the listener)
// when something about run id was recorded; stop forgets it.
func (l *listener) watch(id string) (wake <-chan struct{}, stop func()) {
	ch := make(chan struct{}, 1)
	l.mu.Lock()
	if l.waiters[id] == nil {
		l.waiters[id] = map[chan struct{}]struct{}{}
	}
	l.waiters[id][ch] = struct{}{}
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.waiters[id], ch)
		if len(l.waiters[id]) == 0 {
			delete(l.waiters, id)
		}
	}
}

func (l *listener) wake(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for ch := range l.waiters[id] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// run listens until ctx ends, making the connection again when it is lost
// (the database restarted).
func (l *listener) run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := l.listen(ctx); err != nil && ctx.Err() == nil {
			l.log.Debug("the pool's notification connection was lost; making it again", zap.Error(err))
			select {
			case <-ctx.Done():
			case <-time.After(fallbackPoll):
			}
		}
	}
}

func (l *listener) listen(ctx context.Context) error {
	conn, err := l.db.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	for _, c := range []string{channel, cancelChannel} {
		if _, err := conn.Exec(ctx, "LISTEN "+c); err != nil {
			return err
		}
	}
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			// A connection in LISTEN must not go back to the pool.
			_ = conn.Conn().Close(context.WithoutCancel(ctx)) // it is being dropped anyway
			return err
		}
		if n.Channel == cancelChannel {
			go l.onCancel(n.Payload)
			continue
		}
		l.wake(n.Payload)
	}
}
