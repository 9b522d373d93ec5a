package classlib

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// Generated is what Generate read and wrote.
type Generated struct {
	Index      []byte // the index text, uncompressed
	Classes    int
	Methods    int
	Packages   int
	Unreadable []error  // files that could not be read, left out
	Unpackaged []string // folders with .st files and no package.st, left out as Pharo does
}

// entry is a class while the source is read.
type entry struct {
	kind      Kind
	super     string
	pkg       string
	traits    [2]string
	vars      [2][]string
	classVars []string
	pools     []string
	selectors [2]map[string]bool
}

// Generate reads every package of the Tonel tree at path (a Pharo
// checkout, its src folder, or any Tonel repository) and writes the index
// of its classes and traits, recording source. Files that cannot be read
// are left out and listed; the tree itself must be readable.
func Generate(path string, source Source) (*Generated, error) {
	root, single, err := tonel.FindRoot(path)
	if err != nil {
		return nil, fmt.Errorf("finding the Tonel tree at %s: %w", path, err)
	}
	dirs := []string{path}
	if !single {
		if dirs, err = tonel.PackageDirs(root); err != nil {
			return nil, err
		}
	}
	out := &Generated{Packages: len(dirs)}
	if !single {
		if out.Unpackaged, err = tonel.UnpackagedDirs(root); err != nil {
			return nil, err
		}
	}
	classes := map[string]*entry{}
	get := func(name string) *entry {
		e, ok := classes[name]
		if !ok {
			e = &entry{kind: KindExtended, selectors: [2]map[string]bool{{}, {}}}
			classes[name] = e
		}
		return e
	}
	for _, dir := range dirs {
		files, err := tonel.StFiles(dir)
		if err != nil {
			return nil, err
		}
		pkgName := filepath.Base(dir)
		if pf := filepath.Join(dir, "package.st"); fileExists(pf) {
			if f, err := tonel.ReadFile(pf); err == nil {
				pkgName = tonel.PackageName(dir, f)
			}
		}
		for _, path := range files {
			f, err := tonel.ReadFile(path)
			if err != nil {
				out.Unreadable = append(out.Unreadable, err)
				continue
			}
			d := f.Def
			if d.Kind == tonel.KindPackage || !isIdentifier(d.Name) {
				continue
			}
			e := get(d.Name)
			if d.Kind == tonel.KindClass || d.Kind == tonel.KindTrait {
				if e.kind != KindExtended {
					out.Unreadable = append(out.Unreadable, fmt.Errorf("%s: %s is defined a second time; the first definition is kept", path, d.Name))
					continue
				}
				e.kind = KindClass
				if d.Kind == tonel.KindTrait {
					e.kind = KindTrait
				}
				if d.Superclass != "nil" && isIdentifier(d.Superclass) {
					e.super = d.Superclass
				}
				e.pkg = d.Package
				if e.pkg == "" {
					e.pkg = pkgName
				}
				e.traits = [2]string{traitNames(d.Traits), traitNames(d.ClassTraits)}
				e.vars = [2][]string{varNames(d.InstVars), varNames(d.ClassInstVars)}
				e.classVars = varNames(d.ClassVars)
				e.pools = varNames(d.Pools)
			}
			for _, m := range f.Methods {
				if m.Selector == "" || strings.ContainsAny(m.Selector, " \t\n\r") {
					continue
				}
				e.selectors[sideIndex(m.Side)][m.Selector] = true
				out.Methods++
			}
		}
	}
	out.Classes = len(classes)
	out.Index = render(classes, source)
	return out, nil
}

// render writes the index text, classes sorted by name, selectors sorted.
func render(classes map[string]*entry, source Source) []byte {
	names := make([]string, 0, len(classes))
	for n := range classes {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nsource\t%s\t%s\t%s\n", Header, clean(source.Label), clean(source.Repository), clean(source.Commit))
	for _, n := range names {
		e := classes[n]
		fields := []string{
			string(e.kind), n, e.super, clean(e.pkg), e.traits[0], e.traits[1],
			strings.Join(e.vars[0], " "), strings.Join(e.vars[1], " "),
			strings.Join(e.classVars, " "), strings.Join(e.pools, " "),
			sortedKeys(e.selectors[0]), sortedKeys(e.selectors[1]),
		}
		b.WriteString(strings.Join(fields, "\t"))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Compress gzips an index for embedding or shipping.
func Compress(index []byte) ([]byte, error) {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(index); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// traitNames lists the traits a composition names (`TFoo + (TBar - {#x})`,
// `TFoo classTrait`, `TFoo @ {#a->#b}`): its capitalised identifiers
// outside `{…}`, space-separated.
func traitNames(composition string) string {
	var names []string
	depth := 0
	for i := 0; i < len(composition); {
		ch := composition[i]
		switch {
		case ch == '{':
			depth++
			i++
		case ch == '}':
			depth = max(0, depth-1)
			i++
		case depth == 0 && ch >= 'A' && ch <= 'Z' && (i == 0 || !identChar(composition[i-1])):
			j := i
			for j < len(composition) && identChar(composition[j]) {
				j++
			}
			names = append(names, composition[i:j])
			i = j
		default:
			i++
		}
	}
	return strings.Join(names, " ")
}

func identChar(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '#'
}

// varNames keeps the variable names of a definition list (a slot is
// written `#name => Slot …`).
func varNames(list []string) []string {
	out := make([]string, 0, len(list))
	for _, v := range list {
		if n := tonel.VarName(v); isIdentifier(n) {
			out = append(out, n)
		}
	}
	return out
}

func sortedKeys(set map[string]bool) string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, " ")
}

// clean keeps a free-text field on its line.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
