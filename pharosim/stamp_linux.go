//go:build linux

package pharosim

import (
	"io/fs"
	"syscall"
)

// sysStamp reads the change time and inode of a file: an atomic rename
// over a file changes its inode even within one tick of the clock.
func sysStamp(info fs.FileInfo) (ctime int64, inode uint64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return st.Ctim.Nano(), st.Ino
}
