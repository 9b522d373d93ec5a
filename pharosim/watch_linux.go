//go:build linux

package pharosim

import (
	"errors"
	"log/slog"
	"path/filepath"
	"syscall"
	"unsafe"
)

// diskWatch is an inotify instance watching the package folders. Events are
// read without blocking at the start of each call: the kernel queues them
// as the writes happen, so a call sees every change made before it.
type diskWatch struct {
	fd   int
	dirs map[int32]string // watch descriptor → folder
	buf  []byte
}

// watchMask is every change that can alter a .st file of a folder.
const watchMask = syscall.IN_CLOSE_WRITE | syscall.IN_MODIFY | syscall.IN_ATTRIB |
	syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO |
	syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF

// watchDisk watches the folders; nil when the system refuses (too many
// instances or watches), and the image then checks files itself.
func watchDisk(dirs []string, log *slog.Logger) *diskWatch {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		log.Warn("cannot watch the tree for changes on disk: each call checks the files instead", "error", err)
		return nil
	}
	w := &diskWatch{fd: fd, dirs: map[int32]string{}, buf: make([]byte, 64*1024)}
	for _, d := range dirs {
		wd, err := syscall.InotifyAddWatch(fd, d, watchMask)
		if err != nil {
			log.Warn("cannot watch the tree for changes on disk: each call checks the files instead", "dir", d, "error", err)
			_ = syscall.Close(fd)
			return nil
		}
		w.dirs[int32(wd)] = d
	}
	return w
}

func (w *diskWatch) watching() bool { return w != nil && w.fd >= 0 }

// changes answers the paths that changed since the last call; overflow
// means the kernel dropped events and every file must be checked.
func (w *diskWatch) changes() (paths []string, overflow bool) {
	seen := map[string]bool{}
	for {
		n, err := syscall.Read(w.fd, w.buf)
		if err != nil {
			if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINTR) {
				return paths, overflow
			}
			return paths, true
		}
		if n <= 0 {
			return paths, overflow
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			nameStart := off + syscall.SizeofInotifyEvent
			nameEnd := nameStart + int(ev.Len)
			off = nameEnd
			if ev.Mask&syscall.IN_Q_OVERFLOW != 0 {
				overflow = true
				continue
			}
			dir, ok := w.dirs[ev.Wd]
			if !ok {
				continue
			}
			if ev.Mask&(syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF|syscall.IN_IGNORED) != 0 {
				overflow = true // the folder itself went: check everything
				continue
			}
			if nameEnd > n || ev.Len == 0 {
				continue
			}
			name := cString(w.buf[nameStart:nameEnd])
			if path := filepath.Join(dir, name); !seen[path] {
				seen[path] = true
				paths = append(paths, path)
			}
		}
	}
}

// cString cuts the NUL padding of an inotify name.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

func (w *diskWatch) close() error {
	if !w.watching() {
		return nil
	}
	err := syscall.Close(w.fd)
	w.fd = -1
	return err
}
