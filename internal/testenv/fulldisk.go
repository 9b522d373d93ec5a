package testenv

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// FullDisk is a small tmpfs mounted for one test, that the test fills to
// the last byte and frees again: a full DATA_DIR as an operator meets it.
type FullDisk struct {
	// Dir is the mount point.
	Dir string
	t   testing.TB
}

// MountFullDisk mounts a tmpfs of size bytes (mount(8) needs root). Where
// it cannot, the test is skipped loudly — and fails under CI=true, where
// the runner is root.
func MountFullDisk(t testing.TB, size string) *FullDisk {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0755", "tmpfs", dir).CombinedOutput()
	if err != nil {
		msg := "SKIPPED LOUDLY: this test needs a tmpfs it can fill (mount as root): " + err.Error() + ": " + string(out)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return &FullDisk{Dir: dir, t: t}
}

// filler is the file that takes every free byte.
func (d *FullDisk) filler() string { return filepath.Join(d.Dir, ".filler") }

// Fill writes to the filler file until the file system refuses
// (ENOSPC): no byte is left.
func (d *FullDisk) Fill() {
	d.t.Helper()
	f, err := os.OpenFile(d.filler(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		d.t.Fatalf("filling %s: %v", d.Dir, err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for len(chunk) > 0 {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				d.t.Fatalf("filling %s: %v", d.Dir, err)
			}
			chunk = chunk[:len(chunk)/2] // the last pages, smaller and smaller
		}
	}
}

// Free removes the filler: the file system takes writes again.
func (d *FullDisk) Free() {
	d.t.Helper()
	if err := os.Remove(d.filler()); err != nil {
		d.t.Fatalf("freeing %s: %v", d.Dir, err)
	}
}
