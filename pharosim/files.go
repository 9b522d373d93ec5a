package pharosim

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// srcFile is one Tonel file of the image: its text, held once, its
// definition, and the records of its methods.
type srcFile struct {
	path    string
	pkg     *pkg
	kind    tonel.Kind
	def     tonel.Definition // its strings point into text
	text    string
	stamp   stamp   // what the disk said when text was read or written
	methods []int32 // records in file order
}

// method is one method: a few offsets into its file's text, so that the
// image holds each source once, and 40 bytes besides. Offsets are int32: a
// Tonel file is far below 2 GB (the largest of Pharo 13 is 300 KB).
type method struct {
	file      *srcFile
	impl      *plist // its selector's implementors: the selector is impl.term
	declStart int32
	declEnd   int32
	bodyStart int32
	bodyEnd   int32
	category  catID
	side      Side
}

// selector answers the method's selector.
func (m *method) selector() string { return m.impl.term }

// source is what the image holds: the declaration followed by the body.
func (m *method) source() string {
	t := m.file.text
	return t[m.declStart:m.declEnd] + t[m.bodyStart:m.bodyEnd]
}

// sameSource reports whether a method read from newText has the record's
// source, without building either string.
func (m *method) sameSource(newText string, nm *tonel.Method) bool {
	t := m.file.text
	return t[m.declStart:m.declEnd] == newText[nm.DeclStart:nm.DeclEnd] &&
		t[m.bodyStart:m.bodyEnd] == newText[nm.BodyStart:nm.BodyEnd]
}

// fill points the record at a method of a parsed file.
func (m *method) fill(f *srcFile, nm *tonel.Method, cats *catalog) {
	m.file, m.side, m.category = f, nm.Side, cats.id(nm.Category)
	m.declStart, m.declEnd = int32(nm.DeclStart), int32(nm.DeclEnd)
	m.bodyStart, m.bodyEnd = int32(nm.BodyStart), int32(nm.BodyEnd)
}

// key names the method: `Foo>>bar` or `Foo class>>bar`.
func (m *method) key() MethodKey {
	return MethodKey{Class: m.file.def.Name, ClassSide: m.side == ClassSide, Selector: m.selector()}
}

// reference is the method as a search lists it.
func (m *method) reference() Reference {
	cls := m.file.def.Name
	if m.side == ClassSide {
		cls += " class"
	}
	return Reference{Class: cls, Method: m.selector(), Package: m.file.pkg.name}
}

// methodTable holds every method record; a record's index is its id, which
// the indexes store. Ids of removed methods are reused. Records live in
// fixed-size chunks: the table never copies itself to grow.
type methodTable struct {
	chunks [][]method
	size   int // ids handed out so far
	free   []int32
	live   int
}

// methodChunk is the number of records of a chunk (a power of two).
const methodChunk = 4096

// rec answers the record of an id.
func (t *methodTable) rec(id int32) *method {
	return &t.chunks[id/methodChunk][id%methodChunk]
}

func (t *methodTable) alloc() int32 {
	t.live++
	if n := len(t.free); n > 0 {
		id := t.free[n-1]
		t.free = t.free[:n-1]
		return id
	}
	if t.size == len(t.chunks)*methodChunk {
		t.chunks = append(t.chunks, make([]method, methodChunk))
	}
	t.size++
	return int32(t.size - 1)
}

func (t *methodTable) release(id int32) {
	*t.rec(id) = method{}
	t.free = append(t.free, id)
	t.live--
}

// maxFileSize is the largest file the image reads (offsets are int32).
const maxFileSize = 1<<31 - 1

// addFile registers a parsed file of a package: its class or extension, its
// methods and their index entries. terms, when not nil, are the methods'
// index terms already computed (in file order). It fails when the file
// defines a class another file already defines.
func (img *Image) addFile(p *pkg, tf *tonel.File, st stamp, terms []methodTerms) error {
	if len(tf.Text()) > maxFileSize {
		return fmt.Errorf("file too large (%d bytes)", len(tf.Text()))
	}
	kind := tf.Kind()
	if kind == tonel.KindClass || kind == tonel.KindTrait {
		if c := img.classes[tf.Def.Name]; c != nil && c.def != nil {
			return fmt.Errorf("class %s is defined twice: here and in %s", tf.Def.Name, c.def.path)
		}
	}
	f := img.arena.file()
	*f = srcFile{path: tf.Path, pkg: p, kind: kind, def: img.arena.definition(tf.Def), text: tf.Text(), stamp: st}
	f.methods = img.arena.idList(len(tf.Methods))
	for i, nm := range tf.Methods {
		id := img.methods.alloc()
		rec := img.methods.rec(id)
		rec.fill(f, nm, &img.cats)
		t := termsAt(terms, i, nm)
		rec.impl = img.idx.add(id, nm.Selector, t)
		f.methods = append(f.methods, id)
	}
	img.files[f.path] = f
	p.insert(f)
	img.registerClass(f)
	return nil
}

// termsAt answers the precomputed terms of method i, or computes them.
func termsAt(terms []methodTerms, i int, nm *tonel.Method) methodTerms {
	if i < len(terms) {
		return terms[i]
	}
	return termsOf(nm.Source)
}

// registerClass files f under its class.
func (img *Image) registerClass(f *srcFile) {
	switch f.kind {
	case tonel.KindPackage:
		f.pkg.name = f.def.Name
		if f.pkg.name == "" {
			f.pkg.name = filepath.Base(f.pkg.dir)
		}
	case tonel.KindClass, tonel.KindTrait:
		img.classNamed(f.def.Name).def = f
	case tonel.KindExtension:
		c := img.classNamed(f.def.Name)
		c.extensions = append(c.extensions, f)
		sort.Slice(c.extensions, func(i, j int) bool { return c.extensions[i].path < c.extensions[j].path })
	}
}

// unregisterClass undoes registerClass.
func (img *Image) unregisterClass(f *srcFile) {
	switch f.kind {
	case tonel.KindPackage:
		f.pkg.name = filepath.Base(f.pkg.dir)
		return
	}
	c := img.classes[f.def.Name]
	if c == nil {
		return
	}
	if c.def == f {
		c.def = nil
	}
	for i, e := range c.extensions {
		if e == f {
			c.extensions = append(c.extensions[:i], c.extensions[i+1:]...)
			break
		}
	}
	if c.def == nil && len(c.extensions) == 0 {
		delete(img.classes, c.name)
	}
}

// classNamed returns the class entry, creating it.
func (img *Image) classNamed(name string) *class {
	c, ok := img.classes[name]
	if !ok {
		c = img.arena.class()
		c.name = name
		img.classes[name] = c
	}
	return c
}

// removeFile takes a file and its methods out of the image.
func (img *Image) removeFile(f *srcFile) {
	for _, id := range f.methods {
		rec := img.methods.rec(id)
		img.idx.remove(id, rec.selector(), termsOf(rec.source()))
		img.methods.release(id)
	}
	f.methods = nil
	img.unregisterClass(f)
	f.pkg.remove(f)
	delete(img.files, f.path)
}

// replaceFile puts the new text of a file in the image. Methods whose
// source did not change keep their records and index entries; a changed
// method is re-indexed; so a compile costs what it changes, not the size of
// the class. A file that now defines another class (or another kind) is
// removed and added again.
func (img *Image) replaceFile(f *srcFile, tf *tonel.File, st stamp) error {
	if tf.Kind() != f.kind || tf.Def.Name != f.def.Name {
		p := f.pkg
		img.removeFile(f)
		return img.addFile(p, tf, st, nil)
	}
	newText := tf.Text()
	type sideSel struct {
		side Side
		sel  string
	}
	old := make(map[sideSel]int32, len(f.methods))
	for _, id := range f.methods {
		rec := img.methods.rec(id)
		old[sideSel{rec.side, rec.selector()}] = id
	}
	ids := make([]int32, 0, len(tf.Methods))
	for _, nm := range tf.Methods {
		k := sideSel{nm.Side, nm.Selector}
		id, had := old[k]
		switch {
		case had && img.methods.rec(id).sameSource(newText, nm):
			delete(old, k)
		case had:
			delete(old, k)
			rec := img.methods.rec(id)
			img.idx.update(id, termsOf(rec.source()), termsOf(nm.Source))
		default:
			id = img.methods.alloc()
			img.methods.rec(id).impl = img.idx.add(id, nm.Selector, termsOf(nm.Source))
		}
		ids = append(ids, id)
	}
	for _, id := range old {
		rec := img.methods.rec(id)
		img.idx.remove(id, rec.selector(), termsOf(rec.source()))
		img.methods.release(id)
	}
	f.text, f.def, f.stamp, f.methods = newText, tf.Def, st, ids
	for i, id := range ids {
		img.methods.rec(id).fill(f, tf.Methods[i], &img.cats)
	}
	if f.kind == tonel.KindPackage {
		img.registerClass(f)
	}
	return nil
}

// insert adds a file to the package, keeping the files sorted by path.
func (p *pkg) insert(f *srcFile) {
	i := sort.Search(len(p.files), func(i int) bool { return p.files[i].path >= f.path })
	p.files = append(p.files, nil)
	copy(p.files[i+1:], p.files[i:])
	p.files[i] = f
}

// remove takes a file out of the package.
func (p *pkg) remove(f *srcFile) {
	for i, g := range p.files {
		if g == f {
			p.files = append(p.files[:i], p.files[i+1:]...)
			return
		}
	}
}

// home is the file new methods of the class go to: its own, else the first
// file extending it.
func (c *class) home() *srcFile {
	if files := c.files(); len(files) > 0 {
		return files[0]
	}
	return nil
}

// catID names a protocol in the image's catalog.
type catID uint32

// catalog holds each protocol name once: a real image has a few thousand
// for a hundred thousand methods.
type catalog struct {
	names []string
	ids   map[string]catID
}

// id answers the protocol's id, adding it (copied, so that it does not
// keep a file's text alive).
func (c *catalog) id(name string) catID {
	if id, ok := c.ids[name]; ok {
		return id
	}
	if c.ids == nil {
		c.ids = map[string]catID{}
	}
	id := catID(len(c.names))
	c.names = append(c.names, strings.Clone(name))
	c.ids[c.names[id]] = id
	return id
}

// compact moves the names into one string and rebuilds the map once the
// image is loaded: names added one by one during the load would otherwise
// stay scattered among the load's garbage.
func (c *catalog) compact() {
	size := 0
	for _, n := range c.names {
		size += len(n)
	}
	var all strings.Builder
	all.Grow(size)
	for _, n := range c.names {
		all.WriteString(n)
	}
	text := all.String()
	names := make([]string, len(c.names))
	ids := make(map[string]catID, len(c.names))
	at := 0
	for i, n := range c.names {
		names[i] = text[at : at+len(n)]
		ids[names[i]] = catID(i)
		at += len(n)
	}
	c.names, c.ids = names, ids
}

// name answers a protocol's name.
func (c *catalog) name(id catID) string { return c.names[id] }
