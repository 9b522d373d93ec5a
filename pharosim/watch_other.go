//go:build !linux

package pharosim

import "log/slog"

// diskWatch: this system has no folder watch the simulator uses; every call
// checks the files it needs instead (see disk.go).
type diskWatch struct{}

func watchDisk([]string, *slog.Logger) *diskWatch { return nil }

func (w *diskWatch) watching() bool { return false }

func (w *diskWatch) changes() ([]string, bool) { return nil, false }

func (w *diskWatch) close() error { return nil }
