package pharosim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// loadJob is one file to read at start-up.
type loadJob struct {
	pkg  *pkg
	path string
}

// loaded is a file read and parsed at start-up, with its methods' index
// terms, or why it could not be.
type loaded struct {
	file  *tonel.File
	stamp stamp
	terms []methodTerms
	err   error
}

// load reads the tree at path: a repository root, a package folder or one
// .st file.
func (img *Image) load(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	var jobs []loadJob
	switch {
	case !info.IsDir():
		dir := filepath.Dir(path)
		img.root = filepath.Dir(dir)
		p := img.packageFor(dir)
		img.onlyFile = path
		jobs = append(jobs, loadJob{p, path})
	default:
		root, single, err := tonel.FindRoot(path)
		if err != nil {
			return err
		}
		img.root = root
		dirs := []string{path}
		if !single {
			if dirs, err = tonel.PackageDirs(root); err != nil {
				return err
			}
			if img.unpackaged, err = tonel.UnpackagedDirs(root); err != nil {
				return err
			}
		}
		for _, d := range dirs {
			files, err := tonel.StFiles(d)
			if err != nil {
				return err
			}
			p := img.packageFor(d)
			for _, f := range files {
				jobs = append(jobs, loadJob{p, f})
			}
		}
	}
	img.loadFiles(jobs)
	if img.onlyFile != "" {
		img.nameSingleFilePackage()
	}
	if len(img.files) == 0 && len(img.skipped) > 0 {
		return fmt.Errorf("no file of the tree could be read; the first: %s", img.skippedList()[0])
	}
	return nil
}

// packageFor returns the package of a folder, creating it.
func (img *Image) packageFor(dir string) *pkg {
	p, ok := img.packages[dir]
	if !ok {
		p = &pkg{name: filepath.Base(dir), dir: dir}
		img.packages[dir] = p
	}
	return p
}

// nameSingleFilePackage names the package of a one-file image after the
// class's #package, as a Tonel reader would.
func (img *Image) nameSingleFilePackage() {
	if f := img.files[img.onlyFile]; f != nil && f.def.Package != "" {
		f.pkg.name = f.def.Package
	}
}

// loadFiles reads and parses the files on every core (parsing every method
// for the indexes is most of the work), then registers them in path order,
// so that which of two definitions of a class wins does not depend on
// timing.
//
// The texts are read into a few large blocks rather than one allocation
// per file: the parse leaves much short-lived garbage of the same sizes as
// small files, and texts scattered among it would keep the heap fragmented
// long after the garbage is gone. A block is freed once every file in it
// has been replaced by an edit, so the memory edits can strand is at most
// one copy of the tree's initial text.
func (img *Image) loadFiles(jobs []loadJob) {
	img.arena = newLoadArena(len(jobs))
	defer func() { img.arena = nil }()
	img.files = make(map[string]*srcFile, len(jobs))
	img.classes = make(map[string]*class, len(jobs))
	reservePackageLists(jobs)
	slots := textSlots(jobs)
	results := make([]loaded, len(jobs))
	done := make([]chan struct{}, len(jobs))
	for i := range done {
		done[i] = make(chan struct{})
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				results[i] = readForLoad(jobs[i].path, slots[i])
				close(done[i])
			}
		}()
	}
	for i, job := range jobs {
		<-done[i]
		r := results[i]
		results[i] = loaded{}
		if r.err == nil {
			r.err = img.addFile(job.pkg, r.file, r.stamp, r.terms)
		}
		if r.err != nil {
			img.skip(job.path, r.err, r.stamp)
		}
	}
	wg.Wait()
	img.idx.compact(&img.methods)
	img.compactExtensions()
	img.cats.compact()
}

// reservePackageLists gives every package's file list, in one block, room
// for the files it is about to get, so that the lists are not grown among
// the parse's garbage and left scattered through the heap.
func reservePackageLists(jobs []loadJob) {
	counts := map[*pkg]int{}
	for _, job := range jobs {
		counts[job.pkg]++
	}
	block := make([]*srcFile, 0, len(jobs))
	for _, job := range jobs {
		p := job.pkg
		if n, ok := counts[p]; ok && len(p.files) == 0 {
			p.files = block[len(block) : len(block) : len(block)+n]
			block = block[:len(block)+n]
			delete(counts, p)
		}
	}
}

// compactExtensions moves the classes' lists of extension files, grown
// one file at a time during the load, into one block.
func (img *Image) compactExtensions() {
	total := 0
	for _, c := range img.classes {
		total += len(c.extensions)
	}
	block := make([]*srcFile, 0, total)
	for _, c := range img.classes {
		if len(c.extensions) == 0 {
			continue
		}
		start := len(block)
		block = append(block, c.extensions...)
		c.extensions = block[start:len(block):len(block)]
	}
}

// textBlock is the size of the blocks the files' texts are read into.
const textBlock = 4 << 20

// textSlots gives each file a slice of a block, as large as the file is
// now; a file that cannot be sized, or a large one, gets none and is read
// on its own. The last block is cut to what is left to place, so that the
// blocks hold about the tree's size rather than up to a block more.
func textSlots(jobs []loadJob) [][]byte {
	slots := make([][]byte, len(jobs))
	sizes := make([]int, len(jobs))
	remaining := 0
	for i, job := range jobs {
		sizes[i] = -1
		info, err := os.Stat(job.path)
		if err != nil || !info.Mode().IsRegular() || info.Size() > textBlock/4 {
			continue
		}
		sizes[i] = int(info.Size())
		remaining += sizes[i]
	}
	var block []byte
	for i, size := range sizes {
		if size < 0 {
			continue
		}
		if len(block) < size {
			block = make([]byte, max(size, min(textBlock, remaining)))
		}
		slots[i], block = block[:size:size], block[size:]
		remaining -= size
	}
	return slots
}

// readForLoad reads, parses and indexes one file, into its slot when the
// file still has the slot's size.
func readForLoad(path string, slot []byte) loaded {
	data, st, err := readInto(path, slot)
	if err != nil {
		return loaded{err: err, stamp: st}
	}
	f, err := tonel.ParseFile(path, data)
	if err != nil {
		return loaded{err: err, stamp: st}
	}
	terms := make([]methodTerms, len(f.Methods))
	for i, m := range f.Methods {
		terms[i] = termsOf(m.Source)
	}
	return loaded{file: f, stamp: st, terms: terms}
}

// skip records a file the image cannot read and logs it.
func (img *Image) skip(path string, err error, st stamp) {
	s := SkippedFile{Path: path, Reason: err.Error()}
	var pe *tonel.ParseError
	if errors.As(err, &pe) {
		s.Line, s.Column, s.Reason = pe.Line, pe.Col, pe.Msg
	}
	img.skipped[path] = s
	img.skippedStamps[path] = st
	img.log.Warn("skipping a Tonel file that cannot be read", "file", path, "line", s.Line, "column", s.Column, "reason", s.Reason)
}

// packageDirs lists the package folders, sorted.
func (img *Image) packageDirs() []string {
	dirs := make([]string, 0, len(img.packages))
	for d := range img.packages {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs
}

// removeStaleTemporaries deletes the temporary files an atomic write leaves
// behind when the process is killed between creating and renaming them.
func (img *Image) removeStaleTemporaries() {
	for _, dir := range img.packageDirs() {
		stale, err := filepath.Glob(filepath.Join(dir, ".*.st.tmp-*"))
		if err != nil {
			img.log.Warn("looking for stale temporary files", "dir", dir, "error", err)
			continue
		}
		for _, path := range stale {
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				img.log.Warn("removing a stale temporary file", "path", path, "error", err)
				continue
			}
			img.log.Info("removed a stale temporary file of an interrupted write", "path", path)
		}
	}
}

// releaseLoadGarbage returns the memory the load used for parsing (the
// syntax trees of every method, the copies of each source) to the system,
// so that the process holds about its sources and indexes from then on.
func releaseLoadGarbage() {
	debug.FreeOSMemory()
}
