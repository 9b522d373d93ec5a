package pharosim

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"pharo-refactor/smalltalk/tonel"
)

// Image is the simulated Pharo image: the packages, classes and methods of a
// Tonel tree. The tree's files are the image's only state: every change is
// applied to the parsed file and written through to disk at once, so memory
// and disk never disagree. All methods are safe for concurrent use; changes
// are serialized.
type Image struct {
	mu       sync.RWMutex
	root     string
	packages []*tonel.Package
	classes  map[string]*class
	pkgOf    map[*tonel.File]*tonel.Package
	refs     *refCache
	log      *slog.Logger
}

// class is one class (or trait) of the image: the file defining it, if the
// tree has one, and the files extending it.
type class struct {
	name       string
	def        *tonel.File // nil for a class the tree only extends
	extensions []*tonel.File
}

// files returns the files holding the class's methods: its own file first.
func (c *class) files() []*tonel.File {
	if c.def == nil {
		return c.extensions
	}
	return append([]*tonel.File{c.def}, c.extensions...)
}

// isTrait reports whether the class is defined as a trait.
func (c *class) isTrait() bool { return c.def != nil && c.def.Kind() == tonel.KindTrait }

// LoadImage reads the Tonel tree at dir (a repository root, a package folder
// or a single file; see tonel.ReadTree). Any file that does not parse stops
// the load: the simulator must not run on a tree it only half understands.
func LoadImage(dir string, log *slog.Logger) (*Image, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tree, err := tonel.ReadTree(dir)
	if err != nil {
		return nil, fmt.Errorf("loading the image from %s: %w", dir, err)
	}
	img := &Image{
		root:     tree.Root,
		packages: tree.Packages,
		classes:  map[string]*class{},
		pkgOf:    map[*tonel.File]*tonel.Package{},
		refs:     newRefCache(),
		log:      log,
	}
	if err := img.index(); err != nil {
		return nil, fmt.Errorf("loading the image from %s: %w", dir, err)
	}
	img.removeStaleTemporaries()
	return img, nil
}

// index builds the class table from the packages.
func (img *Image) index() error {
	for _, p := range img.packages {
		for _, f := range p.Files {
			img.pkgOf[f] = p
		}
		for _, f := range append(append([]*tonel.File{}, p.Classes...), p.Traits...) {
			c := img.classNamed(f.Def.Name)
			if c.def != nil {
				return fmt.Errorf("class %s is defined twice: %s and %s", c.name, c.def.Path, f.Path)
			}
			c.def = f
		}
		for _, f := range p.Extensions {
			c := img.classNamed(f.Def.Name)
			c.extensions = append(c.extensions, f)
		}
	}
	return nil
}

// classNamed returns the class entry, creating it.
func (img *Image) classNamed(name string) *class {
	c, ok := img.classes[name]
	if !ok {
		c = &class{name: name}
		img.classes[name] = c
	}
	return c
}

// removeStaleTemporaries deletes the temporary files an atomic write leaves
// behind when the process is killed between creating and renaming them.
func (img *Image) removeStaleTemporaries() {
	for _, p := range img.packages {
		stale, err := filepath.Glob(filepath.Join(p.Dir, ".*.st.tmp-*"))
		if err != nil {
			img.log.Warn("looking for stale temporary files", "dir", p.Dir, "error", err)
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

// Root returns the directory holding the package folders.
func (img *Image) Root() string { return img.root }

// Stats counts packages, classes and methods, for the start-up log.
func (img *Image) Stats() (packages, classes, methods int) {
	img.mu.RLock()
	defer img.mu.RUnlock()
	for _, p := range img.packages {
		for _, f := range p.Files {
			methods += len(f.Methods)
		}
	}
	return len(img.packages), len(img.classes), methods
}

// Side is the instance side or the class side of a class.
type Side = tonel.Side

// The two sides.
const (
	InstanceSide = tonel.InstanceSide
	ClassSide    = tonel.ClassSide
)

// lookupClass finds a class of the image. A well-known Pharo global that the
// tree does not hold exists, but the simulator has no source for it.
func (img *Image) lookupClass(name string) (*class, *ImageError) {
	if c, ok := img.classes[name]; ok {
		return c, nil
	}
	if wellKnownGlobals[name] {
		return nil, &ImageError{
			Class:    "Error",
			Message:  "pharo-sim holds no source for " + name + ": only the classes of the loaded Tonel tree can be read or changed",
			Receiver: "SystemDictionary",
		}
	}
	return nil, errClassNotFound(name)
}

// findMethod returns the file and method for a class, side and selector.
func (c *class) findMethod(side Side, selector string) (*tonel.File, *tonel.Method) {
	for _, f := range c.files() {
		if m := f.Method(side, selector); m != nil {
			return f, m
		}
	}
	return nil, nil
}

// lookupMethod finds a method, answering the image's errors when the class
// or the method is missing.
func (img *Image) lookupMethod(key MethodKey) (*tonel.File, *tonel.Method, *ImageError) {
	c, ierr := img.lookupClass(key.Class)
	if ierr != nil {
		return nil, nil, ierr
	}
	f, m := c.findMethod(sideOf(key.ClassSide), key.Selector)
	if m == nil {
		return nil, nil, errMethodNotFound(key.Selector)
	}
	return f, m, nil
}

func sideOf(classSide bool) Side {
	if classSide {
		return ClassSide
	}
	return InstanceSide
}

// MethodSource answers a method's source with LF line endings.
func (img *Image) MethodSource(key MethodKey) (string, error) {
	img.mu.RLock()
	defer img.mu.RUnlock()
	_, m, ierr := img.lookupMethod(key)
	if ierr != nil {
		return "", ierr
	}
	return m.Source, nil
}

// Protocol answers the protocol (category) of a method.
func (img *Image) Protocol(key MethodKey) (string, error) {
	img.mu.RLock()
	defer img.mu.RUnlock()
	_, m, ierr := img.lookupMethod(key)
	if ierr != nil {
		return "", ierr
	}
	if m.Category == "" {
		return tonel.DefaultCategory, nil
	}
	return m.Category, nil
}

// sourceLookup reads current sources for the oracle; the caller holds the lock.
func (img *Image) sourceLookup(key MethodKey) (string, bool) {
	c, ok := img.classes[key.Class]
	if !ok {
		return "", false
	}
	_, m := c.findMethod(sideOf(key.ClassSide), key.Selector)
	if m == nil {
		return "", false
	}
	return m.Source, true
}

// HasGlobal reports whether `Smalltalk globals includesKey:` would be true:
// a class of the tree or a global every Pharo image has.
func (img *Image) HasGlobal(name string) bool {
	img.mu.RLock()
	defer img.mu.RUnlock()
	_, ok := img.classes[name]
	return ok || wellKnownGlobals[name]
}

// ClassComment answers a class's comment (LF line endings; empty when none).
func (img *Image) ClassComment(name string) (string, error) {
	img.mu.RLock()
	defer img.mu.RUnlock()
	c, ierr := img.lookupClass(name)
	if ierr != nil {
		return "", ierr
	}
	if c.def == nil {
		return "", nil
	}
	return c.def.Def.Comment, nil
}

// ClassSource answers the class as Tonel text, the way Pharo 12's
// `TonelWriter sourceCodeOf:` writes it: comment, definition, then every
// method of the class (extensions included), class side first, sorted.
func (img *Image) ClassSource(name string) (string, error) {
	img.mu.RLock()
	defer img.mu.RUnlock()
	c, ierr := img.lookupClass(name)
	if ierr != nil {
		return "", ierr
	}
	def := tonel.Definition{Kind: tonel.KindExtension, Name: c.name}
	if c.def != nil {
		def = c.def.Def
	}
	var methods []tonel.Method
	for _, f := range c.files() {
		for _, m := range f.Methods {
			methods = append(methods, tonel.Method{Side: m.Side, Source: m.Source, Category: m.Category})
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
	img.mu.RLock()
	defer img.mu.RUnlock()
	names := make([]string, 0, len(img.packages))
	for _, p := range img.packages {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}

// lookupPackage finds a package by name.
func (img *Image) lookupPackage(name string) (*tonel.Package, *ImageError) {
	for _, p := range img.packages {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, errPackageNotFound(name)
}

// PackageClasses lists the classes and traits a package defines, sorted.
func (img *Image) PackageClasses(pkg string) ([]string, error) {
	img.mu.RLock()
	defer img.mu.RUnlock()
	p, ierr := img.lookupPackage(pkg)
	if ierr != nil {
		return nil, ierr
	}
	var names []string
	for _, f := range append(append([]*tonel.File{}, p.Classes...), p.Traits...) {
		names = append(names, f.Def.Name)
	}
	return sortedUnique(names), nil
}

// ExtendedClasses lists the classes a package extends, sorted.
func (img *Image) ExtendedClasses(pkg string) ([]string, error) {
	img.mu.RLock()
	defer img.mu.RUnlock()
	p, ierr := img.lookupPackage(pkg)
	if ierr != nil {
		return nil, ierr
	}
	var names []string
	for _, f := range p.Extensions {
		names = append(names, f.Def.Name)
	}
	return sortedUnique(names), nil
}

// PackageMethods lists a package's methods as Pharo prints them
// (`Foo>>#bar`, `Foo class>>#bar`), extensions included, sorted.
func (img *Image) PackageMethods(pkg string) ([]string, error) {
	img.mu.RLock()
	defer img.mu.RUnlock()
	p, ierr := img.lookupPackage(pkg)
	if ierr != nil {
		return nil, ierr
	}
	var out []string
	for _, f := range p.Files {
		for _, m := range f.Methods {
			out = append(out, keyOf(f, m).String())
		}
	}
	return sortedUnique(out), nil
}

// keyOf names a method of a file.
func keyOf(f *tonel.File, m *tonel.Method) MethodKey {
	return MethodKey{Class: f.Def.Name, ClassSide: m.Side == ClassSide, Selector: m.Selector}
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
	img.mu.RLock()
	defer img.mu.RUnlock()
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
	img.mu.RLock()
	defer img.mu.RUnlock()
	var out []string
	img.eachMethod(func(_ *tonel.Package, _ *tonel.File, m *tonel.Method) {
		if strings.HasPrefix(m.Selector, query) {
			out = append(out, m.Selector)
		}
	})
	return sortedUnique(out)
}

// Reference is one method found by a search: {class, method, package}.
// Class is `Foo class` for a class-side method, as `methodClass name` prints.
type Reference struct {
	Class   string `json:"class"`
	Method  string `json:"method"`
	Package string `json:"package"`
}

// Implementors lists the methods with that selector.
func (img *Image) Implementors(selector string) []Reference {
	img.mu.RLock()
	defer img.mu.RUnlock()
	return img.collect(func(_ *tonel.File, m *tonel.Method) bool { return m.Selector == selector })
}

// eachMethod calls fn for every method of the image, in tree order.
func (img *Image) eachMethod(fn func(*tonel.Package, *tonel.File, *tonel.Method)) {
	for _, p := range img.packages {
		for _, f := range p.Files {
			for _, m := range f.Methods {
				fn(p, f, m)
			}
		}
	}
}

// collect lists the methods keep accepts as references, sorted.
func (img *Image) collect(keep func(*tonel.File, *tonel.Method) bool) []Reference {
	out := []Reference{}
	img.eachMethod(func(p *tonel.Package, f *tonel.File, m *tonel.Method) {
		if keep(f, m) {
			out = append(out, referenceTo(p, f, m))
		}
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Class != out[j].Class {
			return out[i].Class < out[j].Class
		}
		return out[i].Method < out[j].Method
	})
	return out
}

func referenceTo(p *tonel.Package, f *tonel.File, m *tonel.Method) Reference {
	cls := f.Def.Name
	if m.Side == ClassSide {
		cls += " class"
	}
	return Reference{Class: cls, Method: m.Selector, Package: p.Name}
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
	img.mu.RLock()
	defer img.mu.RUnlock()
	if _, ierr := img.lookupClass(name); ierr != nil {
		return ierr
	}
	return nil
}

// RunTests decides the oracle's tests of the named classes against the
// current sources.
func (img *Image) RunTests(o *Oracle, classes []string) TestResult {
	img.mu.RLock()
	defer img.mu.RUnlock()
	return o.Run(classes, img.sourceLookup)
}
