package pharosim

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// The files on disk are the image. Edits made to them while the simulator
// runs (by a person, by a test) are edits of the image: before a read the
// image takes in what changed, and before a compile it reads the class's
// files again, so that a compile never writes a stale copy over an edit.
//
// Where the system can watch folders (inotify on Linux), every change in a
// package folder is queued by the kernel as it happens and taken in at the
// next call, whatever the call: a search sees an edit made a moment before.
// Elsewhere a read checks the files of its class (size, time, inode) and a
// search checks every file.

// stamp is what the disk says about a file without reading it.
type stamp struct {
	size  int64
	mtime int64 // nanoseconds
	ctime int64 // nanoseconds; 0 where the system does not say
	inode uint64
}

func stampOf(info fs.FileInfo) stamp {
	s := stamp{size: info.Size(), mtime: info.ModTime().UnixNano()}
	s.ctime, s.inode = sysStamp(info)
	return s
}

// readWithStamp reads a file and what the disk says about it.
func readWithStamp(path string) ([]byte, stamp, error) { return readInto(path, nil) }

// readInto reads a file into slot when it has exactly the slot's size,
// else into a buffer of its own, and answers what the disk says about it.
func readInto(path string, slot []byte) ([]byte, stamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, stamp{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, stamp{}, err
	}
	if !info.Mode().IsRegular() {
		return nil, stamp{}, errors.New("not a regular file")
	}
	if info.Size() > maxFileSize {
		return nil, stampOf(info), errors.New("file too large")
	}
	data := slot
	if slot == nil || int64(len(slot)) != info.Size() {
		data = make([]byte, info.Size())
	}
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, stamp{}, err
	}
	// A file that changed size while read is taken as read; the change
	// shows at the next check, since the stamp is from before the read.
	return data[:n], stampOf(info), nil
}

// refresh takes in the changes made on disk: the watched ones, or, without
// a watch, whatever a check of every file finds.
func (img *Image) refresh() {
	if !img.disk.watching() {
		img.sweep()
		return
	}
	paths, overflow := img.disk.changes()
	if overflow {
		img.log.Info("the disk watch overflowed: checking every file")
		img.sweep()
		return
	}
	for _, p := range paths {
		if img.wants(p) {
			img.checkFile(p, true)
		}
	}
}

// wants reports whether a path of a watched folder belongs to the image:
// a `.st` file that is not a temporary.
func (img *Image) wants(path string) bool {
	if img.onlyFile != "" {
		return path == img.onlyFile
	}
	base := filepath.Base(path)
	return strings.HasSuffix(base, ".st") && !strings.HasPrefix(base, ".")
}

// sweep checks every file the image holds or skipped, and every .st file
// of its package folders.
func (img *Image) sweep() {
	seen := map[string]bool{}
	for _, dir := range img.packageDirs() {
		if img.onlyFile != "" {
			break
		}
		files, err := tonel.StFiles(dir)
		if err != nil {
			continue // a vanished folder: its files are checked below
		}
		for _, f := range files {
			seen[f] = true
			img.checkFile(f, false)
		}
	}
	var rest []string
	for path := range img.files {
		if !seen[path] {
			rest = append(rest, path)
		}
	}
	for path := range img.skipped {
		if !seen[path] {
			rest = append(rest, path)
		}
	}
	for _, path := range rest {
		img.checkFile(path, false)
	}
}

// checkFile brings one file up to date with the disk. Unless byContent, a
// file whose stamp has not changed is taken as unchanged; otherwise its
// bytes are compared with the image's.
func (img *Image) checkFile(path string, byContent bool) {
	f := img.files[path]
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			img.forget(path, f)
		}
		return
	}
	st := stampOf(info)
	if !byContent {
		if f != nil && f.stamp == st {
			return
		}
		if old, ok := img.skippedStamps[path]; ok && old == st {
			return
		}
	}
	data, st, err := readWithStamp(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			img.forget(path, f)
			return
		}
		img.takeOut(path, f, err, st)
		return
	}
	if f != nil && string(data) == f.text {
		f.stamp = st
		return
	}
	img.takeIn(path, f, data, st)
}

// forget takes a deleted file out of the image.
func (img *Image) forget(path string, f *srcFile) {
	delete(img.skipped, path)
	delete(img.skippedStamps, path)
	if f != nil {
		img.removeFile(f)
		img.log.Info("a Tonel file was deleted on disk: its methods left the image", "file", path)
	}
}

// takeOut removes a file that can no longer be read and lists it as
// skipped.
func (img *Image) takeOut(path string, f *srcFile, err error, st stamp) {
	if f != nil {
		img.removeFile(f)
	}
	img.skip(path, err, st)
}

// takeIn puts a file's new bytes in the image.
func (img *Image) takeIn(path string, f *srcFile, data []byte, st stamp) {
	tf, err := tonel.ParseFile(path, data)
	if err != nil {
		img.takeOut(path, f, err, st)
		return
	}
	delete(img.skipped, path)
	delete(img.skippedStamps, path)
	if f != nil {
		err = img.replaceFile(f, tf, st)
	} else if p := img.packages[filepath.Dir(path)]; p != nil {
		err = img.addFile(p, tf, st, nil)
	} else {
		return // not in a package folder of the image
	}
	if err != nil {
		img.skip(path, err, st)
		return
	}
	img.log.Info("took in a Tonel file changed on disk", "file", path, "methods", len(tf.Methods))
}
