package tonel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFileAtomic replaces the file at path with data so that a crash at any
// moment leaves either the old file or the new one, never a torn mix: the
// data goes to a temporary file in the same directory (rename is atomic only
// within one file system), which is synced, renamed over path, and then the
// directory is synced so the rename itself is durable.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("tonel: atomic write of %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = writeAndSync(tmp, data, perm); err != nil {
		return fmt.Errorf("tonel: atomic write of %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("tonel: atomic write of %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("tonel: atomic write of %s: %w", path, err)
	}
	if err = syncDir(dir); err != nil {
		return fmt.Errorf("tonel: atomic write of %s: %w", path, err)
	}
	return nil
}

// writeAndSync writes data, sets the mode (CreateTemp makes files 0600) and
// flushes the file to stable storage.
func writeAndSync(f *os.File, data []byte, perm os.FileMode) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	return f.Sync()
}

// syncDir flushes a directory entry change. Some systems cannot sync a
// directory; that is not worth failing a write that already happened.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	syncErr := d.Sync()
	closeErr := d.Close()
	if syncErr != nil && !errors.Is(syncErr, syscall.EINVAL) && !errors.Is(syncErr, errors.ErrUnsupported) {
		return syncErr
	}
	return closeErr
}
