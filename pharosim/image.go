package pharosim

import (
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"

	"github.com/pharo-refactor/refactord/pharosim/classlib"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// Image is the simulated Pharo image: the packages, classes and methods of a
// Tonel tree. The tree's files are the image's only state. Every change is
// applied to a file's text and written through to disk at once; every edit
// made to the files on disk (by a person, by a test) is an edit of the image,
// found before the next read or compile (see disk.go). All methods are safe
// for concurrent use; calls are serialized.
//
// Memory is kept close to the source: each file's text is held once, each
// method is a small record of offsets into it, and the implementors and
// references are indexes maintained on every change (index.go), so a search
// costs what it finds, not the size of the image.
type Image struct {
	mu       sync.Mutex
	root     string
	packages map[string]*pkg // by folder
	files    map[string]*srcFile
	skipped  map[string]SkippedFile // files of the tree the image could not read, by path
	// skippedStamps say what the disk held when a skipped file was read, so
	// that it is read again only when it changes.
	skippedStamps map[string]stamp
	onlyFile      string     // the file, when the image is one file
	arena         *loadArena // while loading only
	classes       map[string]*class
	methods       methodTable
	cats          catalog // the protocols of the methods
	idx           index
	// lib is the class library: what the image knows of the classes the
	// tree does not define (their superclasses, traits and selectors).
	lib *classlib.Library
	// unpackaged are the folders of the tree holding .st files but no
	// package.st: not read, as Pharo does not read them.
	unpackaged []string
	disk       *diskWatch
	log        *slog.Logger
}

// pkg is one package folder.
type pkg struct {
	name  string // from package.st, else the folder's name
	dir   string
	files []*srcFile // sorted by path
}

// class is one class (or trait) of the image: the file defining it, if the
// tree has one, and the files extending it.
type class struct {
	name       string
	def        *srcFile // nil for a class the tree only extends
	extensions []*srcFile
}

// files returns the files holding the class's methods, its own file first,
// in a new slice: a caller may reload them while it walks the list.
func (c *class) files() []*srcFile {
	out := make([]*srcFile, 0, 1+len(c.extensions))
	if c.def != nil {
		out = append(out, c.def)
	}
	return append(out, c.extensions...)
}

// isTrait reports whether the class is defined as a trait.
func (c *class) isTrait() bool { return c.def != nil && c.def.kind == tonel.KindTrait }

// SkippedFile is a file of the tree that the image could not read: it is
// left out, and the rest of the tree is served.
type SkippedFile struct {
	Path   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	Reason string `json:"reason"`
}

// String prints FILE:LINE:COL: REASON.
func (s SkippedFile) String() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", s.Path, s.Line, s.Column, s.Reason)
	}
	return s.Path + ": " + s.Reason
}

// LoadImage reads the Tonel tree at dir (a repository root, a package folder
// or a single file; see tonel.ReadTree) and starts watching it. A file that
// cannot be read is left out and listed by Skipped; the tree itself must be
// readable. Close stops the watching. The classes the tree does not define
// are those of Pharo 13's class library (classlib.Default).
func LoadImage(dir string, log *slog.Logger) (*Image, error) {
	return LoadImageWithLibrary(dir, nil, log)
}

// LoadImageWithLibrary is LoadImage over another class library (nil:
// Pharo 13's).
func LoadImageWithLibrary(dir string, lib *classlib.Library, log *slog.Logger) (*Image, error) {
	if lib == nil {
		lib = classlib.Default()
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	img := &Image{
		packages:      map[string]*pkg{},
		files:         map[string]*srcFile{},
		skipped:       map[string]SkippedFile{},
		skippedStamps: map[string]stamp{},
		classes:       map[string]*class{},
		idx:           newIndex(),
		lib:           lib,
		log:           log,
	}
	if err := img.load(dir); err != nil {
		return nil, fmt.Errorf("loading the image from %s: %w", dir, err)
	}
	if !img.definesKernel() {
		// Every canUnderstand: and dry compile will walk into the class
		// library: read it now rather than inside the first tool call and
		// its time limit.
		if err := lib.Err(); err != nil {
			return nil, fmt.Errorf("loading the class library: %w", err)
		}
	}
	img.removeStaleTemporaries()
	img.disk = watchDisk(img.packageDirs(), log)
	releaseLoadGarbage()
	return img, nil
}

// definesKernel reports whether the tree defines Object itself (as Pharo's
// own src does): then the class library is read only if a question reaches
// a class the tree does not define.
func (img *Image) definesKernel() bool {
	c, ok := img.classes["Object"]
	return ok && c.def != nil
}

// Close stops watching the disk. The image answers from its last state
// afterwards, checking each file it touches.
func (img *Image) Close() error {
	img.mu.Lock()
	defer img.mu.Unlock()
	return img.disk.close()
}

// Root returns the directory holding the package folders.
func (img *Image) Root() string { return img.root }

// Stats counts packages, classes and methods, for the start-up log.
func (img *Image) Stats() (packages, classes, methods int) {
	img.mu.Lock()
	defer img.mu.Unlock()
	return len(img.packages), len(img.classes), img.methods.live
}

// Skipped lists the files of the tree that could not be read, by path.
func (img *Image) Skipped() []SkippedFile {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	return img.skippedList()
}

func (img *Image) skippedList() []SkippedFile {
	out := make([]SkippedFile, 0, len(img.skipped))
	for _, s := range img.skipped {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Status is what the simulator says about itself (get_settings).
type Status struct {
	Server       string        `json:"server"`
	Root         string        `json:"root"`
	Packages     int           `json:"packages"`
	Classes      int           `json:"classes"`
	Methods      int           `json:"methods"`
	WatchingDisk bool          `json:"watching_disk"`
	SkippedFiles []SkippedFile `json:"skipped_files"`
	// SkippedFolders hold .st files but no package.st: not read, as Pharo
	// reads only package folders.
	SkippedFolders []string      `json:"skipped_folders"`
	ClassLibrary   LibraryStatus `json:"class_library"`
}

// LibraryStatus says which class library answers for the classes the tree
// does not define.
type LibraryStatus struct {
	Label      string `json:"label"`
	Repository string `json:"repository"`
	Commit     string `json:"commit"`
	Classes    int    `json:"classes"`
}

// Status reports the image's size and the files it skipped.
func (img *Image) Status() Status {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	return Status{
		Server: ServerVersion, Root: img.root, Packages: len(img.packages), Classes: len(img.classes),
		Methods: img.methods.live, WatchingDisk: img.disk.watching(), SkippedFiles: img.skippedList(),
		SkippedFolders: append([]string{}, img.unpackaged...), ClassLibrary: img.libraryStatus(),
	}
}

// libraryStatus describes the class library (loading it if it was not).
func (img *Image) libraryStatus() LibraryStatus {
	src := img.lib.Source()
	return LibraryStatus{Label: src.Label, Repository: src.Repository, Commit: src.Commit, Classes: img.lib.Len()}
}

// SkippedFolders lists the folders of the tree holding .st files but no
// package.st, which the image did not read.
func (img *Image) SkippedFolders() []string {
	img.mu.Lock()
	defer img.mu.Unlock()
	return append([]string{}, img.unpackaged...)
}

// Side is the instance side or the class side of a class.
type Side = tonel.Side

// The two sides.
const (
	InstanceSide = tonel.InstanceSide
	ClassSide    = tonel.ClassSide
)

// lookupClass finds a class of the image. A class of the class library (or
// a global variable) that the tree does not hold exists, but the simulator
// has no source for it.
func (img *Image) lookupClass(name string) (*class, *ImageError) {
	if c, ok := img.classes[name]; ok {
		return c, nil
	}
	if img.isGlobal(name) {
		return nil, &ImageError{
			Class:    "Error",
			Message:  "pharo-sim holds no source for " + name + ": only the classes of the loaded Tonel tree can be read or changed",
			Receiver: "SystemDictionary",
		}
	}
	return nil, errClassNotFound(name)
}

// freshClass finds a class after bringing its files up to date with the
// disk: the watched changes, then the class's own files by their stamps
// (cheap, and right even where a watch misses changes, as on some network
// or container mounts).
func (img *Image) freshClass(name string) (*class, *ImageError) {
	if img.disk.watching() {
		img.refresh()
	}
	if c, ok := img.classes[name]; ok {
		for _, f := range c.files() {
			img.checkFile(f.path, false)
		}
	}
	return img.lookupClass(name)
}

// findMethod returns the record of a method of the class, or -1.
func (img *Image) findMethod(c *class, side Side, selector string) int32 {
	files := c.files()
	// The implementors of the selector are usually fewer than the methods
	// of the class; scan whichever list is shorter.
	impl := img.idx.implementors.ids(selector)
	size := 0
	for _, f := range files {
		size += len(f.methods)
	}
	if len(impl) < size {
		for _, id := range impl {
			m := img.methods.rec(id)
			if m.side == side && m.file.def.Name == c.name {
				return id
			}
		}
		return -1
	}
	for _, f := range files {
		for _, id := range f.methods {
			if m := img.methods.rec(id); m.side == side && m.selector() == selector {
				return id
			}
		}
	}
	return -1
}

// lookupMethod finds a method, answering the image's errors when the class
// or the method is missing.
func (img *Image) lookupMethod(key MethodKey) (*method, *ImageError) {
	c, ierr := img.freshClass(key.Class)
	if ierr != nil {
		return nil, ierr
	}
	id := img.findMethod(c, sideOf(key.ClassSide), key.Selector)
	if id < 0 {
		return nil, errMethodNotFound(key.Selector)
	}
	return img.methods.rec(id), nil
}

func sideOf(classSide bool) Side {
	if classSide {
		return ClassSide
	}
	return InstanceSide
}

// MethodSource answers a method's source with LF line endings.
func (img *Image) MethodSource(key MethodKey) (string, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	m, ierr := img.lookupMethod(key)
	if ierr != nil {
		return "", ierr
	}
	return m.source(), nil
}

// Protocol answers the protocol (category) of a method.
func (img *Image) Protocol(key MethodKey) (string, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	m, ierr := img.lookupMethod(key)
	if ierr != nil {
		return "", ierr
	}
	if c := img.cats.name(m.category); c != "" {
		return c, nil
	}
	return tonel.DefaultCategory, nil
}

// sourceLookup reads current sources for the oracle; the caller holds the
// lock and has refreshed the image.
func (img *Image) sourceLookup(key MethodKey) (string, bool) {
	c, ok := img.classes[key.Class]
	if !ok {
		return "", false
	}
	id := img.findMethod(c, sideOf(key.ClassSide), key.Selector)
	if id < 0 {
		return "", false
	}
	return img.methods.rec(id).source(), true
}

// HasGlobal reports whether `Smalltalk globals includesKey:` would be true:
// a class of the tree or of the class library, or a global variable every
// Pharo image has.
func (img *Image) HasGlobal(name string) bool {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	return img.isGlobal(name)
}

// ClassComment answers a class's comment (LF line endings; empty when none).
func (img *Image) ClassComment(name string) (string, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	c, ierr := img.freshClass(name)
	if ierr != nil {
		return "", ierr
	}
	if c.def == nil {
		return "", nil
	}
	return c.def.def.Comment, nil
}

// ClassSource answers the class as Tonel text, the way Pharo 12's
// `TonelWriter sourceCodeOf:` writes it: comment, definition, then every
// method of the class (extensions included), class side first, sorted.
func (img *Image) ClassSource(name string) (string, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	c, ierr := img.freshClass(name)
	if ierr != nil {
		return "", ierr
	}
	def := tonel.Definition{Kind: tonel.KindExtension, Name: c.name}
	if c.def != nil {
		def = c.def.def
	}
	var methods []tonel.Method
	for _, f := range c.files() {
		for _, id := range f.methods {
			m := img.methods.rec(id)
			methods = append(methods, tonel.Method{Side: m.side, Source: m.source(), Category: img.cats.name(m.category)})
		}
	}
	text, err := tonel.Render(def, methods)
	if err != nil {
		return "", fmt.Errorf("rendering %s: %w", name, err)
	}
	return string(text), nil
}

// PackageNames lists the packages, sorted.
func (img *Image) PackageNames() []string {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	names := make([]string, 0, len(img.packages))
	for _, p := range img.packages {
		names = append(names, p.name)
	}
	return sortedUnique(names)
}

// lookupPackage finds a package by name.
func (img *Image) lookupPackage(name string) (*pkg, *ImageError) {
	img.refresh()
	for _, p := range img.packages {
		if p.name == name {
			return p, nil
		}
	}
	return nil, errPackageNotFound(name)
}

// PackageClasses lists the classes and traits a package defines, sorted.
func (img *Image) PackageClasses(pkgName string) ([]string, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	p, ierr := img.lookupPackage(pkgName)
	if ierr != nil {
		return nil, ierr
	}
	var names []string
	for _, f := range p.files {
		if f.kind == tonel.KindClass || f.kind == tonel.KindTrait {
			names = append(names, f.def.Name)
		}
	}
	return sortedUnique(names), nil
}

// ExtendedClasses lists the classes a package extends, sorted.
func (img *Image) ExtendedClasses(pkgName string) ([]string, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	p, ierr := img.lookupPackage(pkgName)
	if ierr != nil {
		return nil, ierr
	}
	var names []string
	for _, f := range p.files {
		if f.kind == tonel.KindExtension {
			names = append(names, f.def.Name)
		}
	}
	return sortedUnique(names), nil
}

// PackageMethods lists a package's methods as Pharo prints them
// (`Foo>>#bar`, `Foo class>>#bar`), extensions included, sorted.
func (img *Image) PackageMethods(pkgName string) ([]string, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	p, ierr := img.lookupPackage(pkgName)
	if ierr != nil {
		return nil, ierr
	}
	var out []string
	for _, f := range p.files {
		for _, id := range f.methods {
			out = append(out, img.methods.rec(id).key().String())
		}
	}
	return sortedUnique(out), nil
}

// ClassesLike lists class names starting with query, ignoring case, as
// `SystemNavigation>>allClassNamesStartingWith:do:caseSensitive: false`.
func (img *Image) ClassesLike(query string) []string {
	return img.namesLike(query, func(c *class) bool { return !c.isTrait() })
}

// TraitsLike lists trait names starting with query, ignoring case.
func (img *Image) TraitsLike(query string) []string {
	return img.namesLike(query, (*class).isTrait)
}

func (img *Image) namesLike(query string, keep func(*class) bool) []string {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	q := strings.ToLower(query)
	out := []string{}
	for name, c := range img.classes {
		if keep(c) && strings.HasPrefix(strings.ToLower(name), q) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// SelectorsLike lists implemented selectors starting with query
// (case-sensitive, as `allSelectorsStartingWith:do:`), sorted.
func (img *Image) SelectorsLike(query string) []string {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	out := []string{}
	for sel := range img.idx.implementors {
		if strings.HasPrefix(sel, query) {
			out = append(out, sel)
		}
	}
	sort.Strings(out)
	return out
}

func sortedUnique(names []string) []string {
	out := []string{}
	sort.Strings(names)
	for i, n := range names {
		if i == 0 || n != names[i-1] {
			out = append(out, n)
		}
	}
	return out
}

// requireClass fails as `Smalltalk globals at:` does for an unknown class.
func (img *Image) requireClass(name string) error {
	img.mu.Lock()
	defer img.mu.Unlock()
	if _, ierr := img.freshClass(name); ierr != nil {
		return ierr
	}
	return nil
}

// RunTests decides the oracle's tests of the named classes against the
// current sources.
func (img *Image) RunTests(o *Oracle, classes []string) TestResult {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	return o.Run(classes, img.sourceLookup, img.printTest)
}

// TestsHang reports whether a test of the named classes would never finish
// on the current sources.
func (img *Image) TestsHang(o *Oracle, classes []string) bool {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	return o.Hangs(classes, img.sourceLookup)
}
