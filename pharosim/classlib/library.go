// Package classlib is a class-library index: the names of an image's
// classes and traits (kind, superclass, traits used on each side, package,
// variables) and the selectors each defines on each side, extensions
// included — facts about an API, no method body. pharo-sim answers from it
// what a real image would answer about the classes a Tonel tree does not
// hold (canUnderstand:, inheritsFrom:, class existence).
//
// The index is a line-oriented text, usually gzip-compressed:
//
//	pharo-sim class library 1
//	source	LABEL	REPOSITORY	COMMIT
//	KIND	NAME	SUPERCLASS	PACKAGE	TRAITS	CLASS-TRAITS	INST-VARS	CLASS-INST-VARS	CLASS-VARS	POOLS	INSTANCE-SELECTORS	CLASS-SELECTORS
//
// one record line per class, sorted by name: KIND is C (class), T (trait)
// or X (a class the source only extends, whose shape it does not say);
// SUPERCLASS is empty for a root; every list is space-separated. The
// default index, generated from Pharo 13's src, is embedded (Default).
package classlib

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// Header is the first line of every index.
const Header = "pharo-sim class library 1"

// MaxIndexBytes bounds an index's uncompressed size: Pharo 13's is a few
// megabytes, so anything far larger is not an index.
const MaxIndexBytes = 64 << 20

// fieldCount is the number of tab-separated fields of a record line.
const fieldCount = 12

// maxTraitDepth bounds the walk through traits using traits.
const maxTraitDepth = 8

//go:embed pharo13.idx.gz
var defaultIndex []byte

// Source says what an index was generated from.
type Source struct {
	Label      string // e.g. "Pharo 13"
	Repository string // e.g. "github.com/pharo-project/pharo"
	Commit     string // the source's commit; "unknown" when it could not be told
}

// Class is one class or trait of the index. Its lists are space-separated
// names sharing the index's text.
type Class struct {
	Name       string
	Superclass string // "" for a root or a class of unknown shape
	Package    string
	Kind       Kind
	traits     [2]string // by side
	vars       [2]string // instance variables, class-instance variables
	classVars  string
	pools      string
	selectors  [2]string // by side, sorted
}

// Kind says what the index knows of a class.
type Kind byte

// The kinds of record.
const (
	KindClass    Kind = 'C'
	KindTrait    Kind = 'T'
	KindExtended Kind = 'X' // only extended by the source: its shape is unknown
)

// Library is a loaded index. It is read-only once loaded and safe for
// concurrent use. An index opened with Default is decompressed on its first
// use.
type Library struct {
	once    sync.Once
	open    func() (string, error)
	err     error
	source  Source
	classes map[string]*Class
	// implemented holds every selector some class or trait defines, on
	// either side; made when first asked (DefinedAnywhere).
	implementedOnce sync.Once
	implemented     map[string]bool
}

// Default is the index of Pharo 13 embedded in the binary, decompressed
// when first asked. It is one value per process, read-only once loaded, so
// that every image of a process shares one copy.
func Default() *Library { return defaultLibrary() }

var defaultLibrary = sync.OnceValue(func() *Library {
	return &Library{open: func() (string, error) { return decompress(defaultIndex) }}
})

// LoadFile reads an index file (gzip-compressed or plain) and parses it
// now, so that a broken file is reported at start-up.
func LoadFile(path string) (*Library, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("class library index: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxIndexBytes+1))
	if err != nil {
		return nil, fmt.Errorf("class library index %s: %w", path, err)
	}
	data, err := decompress(raw)
	if err != nil {
		return nil, fmt.Errorf("class library index %s: %w", path, err)
	}
	l := &Library{open: func() (string, error) { return data, nil }}
	if err := l.load(); err != nil {
		return nil, fmt.Errorf("class library index %s: %w", path, err)
	}
	return l, nil
}

// Parse reads an index from its text (gzip-compressed or plain).
func Parse(raw []byte) (*Library, error) {
	data, err := decompress(raw)
	if err != nil {
		return nil, err
	}
	l := &Library{open: func() (string, error) { return data, nil }}
	if err := l.load(); err != nil {
		return nil, err
	}
	return l, nil
}

// decompress gunzips raw when it is gzip data, bounded by MaxIndexBytes,
// into one string allocated at the size the gzip trailer announces: the
// index's text is most of what a loaded library holds, and growing a
// buffer to it would leave several times its size behind as garbage.
func decompress(raw []byte) (string, error) { return decompressAtMost(raw, MaxIndexBytes) }

// decompressAtMost is decompress with the bound given.
func decompressAtMost(raw []byte, limit int) (string, error) {
	if len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		if len(raw) > limit {
			return "", fmt.Errorf("larger than %d bytes: not a class library index", limit)
		}
		return string(raw), nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return "", fmt.Errorf("reading the gzip stream: %w", err)
	}
	defer zr.Close()
	var out strings.Builder
	if len(raw) >= 4 {
		// ISIZE: the uncompressed size modulo 2^32, a hint only.
		size := int(binary.LittleEndian.Uint32(raw[len(raw)-4:]))
		out.Grow(min(size, limit) + 1)
	}
	if _, err := io.Copy(&out, io.LimitReader(zr, int64(limit)+1)); err != nil {
		return "", fmt.Errorf("reading the gzip stream: %w", err)
	}
	if out.Len() > limit {
		return "", fmt.Errorf("larger than %d bytes uncompressed: not a class library index", limit)
	}
	return out.String(), nil
}

// load parses the index once; later calls answer the first one's error.
func (l *Library) load() error {
	l.once.Do(func() {
		data, err := l.open()
		if err != nil {
			l.err = err
			return
		}
		l.err = l.parse(data)
		l.open = nil
	})
	return l.err
}

// Err reports whether the index could be loaded.
func (l *Library) Err() error { return l.load() }

// parse reads the header, the source line and the records.
func (l *Library) parse(text string) error {
	line, rest, _ := strings.Cut(text, "\n")
	if line != Header {
		return fmt.Errorf("line 1: want %q, found %.60q", Header, line)
	}
	line, rest, _ = strings.Cut(rest, "\n")
	f := strings.Split(line, "\t")
	if len(f) != 4 || f[0] != "source" {
		return fmt.Errorf("line 2: want \"source\\tLABEL\\tREPOSITORY\\tCOMMIT\", found %.60q", line)
	}
	l.source = Source{Label: f[1], Repository: f[2], Commit: f[3]}
	l.classes = make(map[string]*Class, strings.Count(rest, "\n")+1)
	records := make([]Class, 0, strings.Count(rest, "\n")+1)
	for n := 3; rest != ""; n++ {
		line, rest, _ = strings.Cut(rest, "\n")
		if line == "" {
			continue
		}
		c, err := parseRecord(line)
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if _, dup := l.classes[c.Name]; dup {
			return fmt.Errorf("line %d: class %s listed twice", n, c.Name)
		}
		records = append(records, c)
		l.classes[c.Name] = &records[len(records)-1]
	}
	return nil
}

// parseRecord reads one record line.
func parseRecord(line string) (Class, error) {
	var f [fieldCount]string
	rest := line
	for i := range fieldCount - 1 {
		var ok bool
		f[i], rest, ok = strings.Cut(rest, "\t")
		if !ok {
			return Class{}, fmt.Errorf("want %d tab-separated fields, found %d", fieldCount, i+1)
		}
	}
	f[fieldCount-1] = rest
	if strings.Contains(rest, "\t") {
		return Class{}, fmt.Errorf("want %d tab-separated fields, found more", fieldCount)
	}
	kind := Kind(0)
	if len(f[0]) == 1 {
		kind = Kind(f[0][0])
	}
	switch kind {
	case KindClass, KindTrait, KindExtended:
	default:
		return Class{}, fmt.Errorf("kind %.20q: want C, T or X", f[0])
	}
	if !isIdentifier(f[1]) {
		return Class{}, fmt.Errorf("class name %.60q is not an identifier", f[1])
	}
	if f[2] != "" && !isIdentifier(f[2]) {
		return Class{}, fmt.Errorf("%s: superclass %.60q is not an identifier", f[1], f[2])
	}
	return Class{
		Kind: kind, Name: f[1], Superclass: f[2], Package: f[3],
		traits: [2]string{f[4], f[5]}, vars: [2]string{f[6], f[7]}, classVars: f[8], pools: f[9],
		selectors: [2]string{f[10], f[11]},
	}, nil
}

// isIdentifier reports whether s is a Smalltalk identifier (letters,
// digits, underscores, not starting with a digit).
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		letter := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_'
		if !letter && (i == 0 || b < '0' || b > '9') {
			return false
		}
	}
	return true
}

// Source says what the index was generated from (zero when it cannot be
// loaded).
func (l *Library) Source() Source {
	if l.load() != nil {
		return Source{}
	}
	return l.source
}

// Len is the number of classes and traits of the index.
func (l *Library) Len() int {
	if l.load() != nil {
		return 0
	}
	return len(l.classes)
}

// Class finds a class or trait of the index.
func (l *Library) Class(name string) (*Class, bool) {
	if l == nil || l.load() != nil {
		return nil, false
	}
	c, ok := l.classes[name]
	return c, ok
}

// imageGlobals are the globals of Pharo 13's image that are no class:
// the index, read from class definitions, does not hold them.
var imageGlobals = map[string]bool{
	"Smalltalk": true, "Transcript": true, "Processor": true, "Undeclared": true, "SourceFiles": true,
	"Display": true, "World": true, "Sensor": true, "ActiveHand": true, "ActiveEvent": true, "ActiveWorld": true,
}

// HasGlobal reports whether Pharo's image holds a global of that name: a
// class or trait of the index, or one of the image's other globals.
// Without an index it cannot tell, and answers true.
func (l *Library) HasGlobal(name string) bool {
	if l == nil || l.load() != nil {
		return true
	}
	_, ok := l.classes[name]
	return ok || imageGlobals[name]
}

// Declares reports whether the class of that name declares the variable
// itself: an instance, class-instance or class variable.
func (l *Library) Declares(class, variable string) bool {
	c, ok := l.Class(class)
	if !ok {
		return false
	}
	return containsWord(c.vars[0], variable) || containsWord(c.vars[1], variable) || containsWord(c.classVars, variable)
}

// DefinedAnywhere reports whether some class or trait of the index defines
// the selector, on either side: a selector no class of Pharo's defines is
// no selector of Pharo's.
func (l *Library) DefinedAnywhere(selector string) bool {
	if l == nil || l.load() != nil {
		return false
	}
	l.implementedOnce.Do(func() {
		l.implemented = map[string]bool{}
		for _, c := range l.classes {
			for _, list := range c.selectors {
				for _, sel := range strings.Fields(list) {
					l.implemented[sel] = true
				}
			}
		}
	})
	return l.implemented[selector]
}

// Defines reports whether the class itself defines the selector on side
// (in its own definition or an extension; not through traits).
func (c *Class) Defines(side tonel.Side, selector string) bool {
	return containsWord(c.selectors[sideIndex(side)], selector)
}

// Selectors lists the selectors the class itself defines on side.
func (c *Class) Selectors(side tonel.Side) []string {
	return strings.Fields(c.selectors[sideIndex(side)])
}

// Traits lists the traits the class uses on side. The class side uses
// the class-side composition when the source gives one, else the class
// sides of the traits of the instance side, as Pharo does.
func (c *Class) Traits(side tonel.Side) []string {
	if side == tonel.ClassSide && c.traits[1] != "" {
		return strings.Fields(c.traits[1])
	}
	return strings.Fields(c.traits[0])
}

// Vars lists the instance variables (side instance) or class-instance
// variables (side class) the class defines itself.
func (c *Class) Vars(side tonel.Side) []string { return strings.Fields(c.vars[sideIndex(side)]) }

// ClassVars lists the class variables the class defines itself.
func (c *Class) ClassVars() []string { return strings.Fields(c.classVars) }

// UsesPools reports whether the class names pool dictionaries.
func (c *Class) UsesPools() bool { return c.pools != "" }

// Provides reports whether the class or trait named defines the selector
// on side itself or through the traits it uses (and the traits they use).
func (l *Library) Provides(name string, side tonel.Side, selector string) bool {
	return l.provides(name, side, selector, 0)
}

func (l *Library) provides(name string, side tonel.Side, selector string, depth int) bool {
	c, ok := l.Class(name)
	if !ok || depth > maxTraitDepth {
		return false
	}
	if c.Defines(side, selector) {
		return true
	}
	for _, t := range c.Traits(side) {
		if tc, ok := l.Class(t); ok && tc.Kind == KindTrait && l.provides(t, side, selector, depth+1) {
			return true
		}
	}
	return false
}

func sideIndex(side tonel.Side) int {
	if side == tonel.ClassSide {
		return 1
	}
	return 0
}

// containsWord reports whether list, space-separated, holds word.
func containsWord(list, word string) bool {
	if word == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(list[from:], word)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(word)
		if (start == 0 || list[start-1] == ' ') && (end == len(list) || list[end] == ' ') {
			return true
		}
		from = start + 1
	}
}
