package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/smalltalk"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// buildImage copies the package folders of every Tonel tree of the
// corpus into dst/src, as one image.
func buildImage(trees []string, dst string) error {
	src := filepath.Join(dst, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, ".properties"), []byte("{\n\t#format : #tonel\n}\n"), 0o644); err != nil {
		return err
	}
	for _, tree := range trees {
		dirs, err := packageDirs(tree)
		if err != nil {
			return err
		}
		if len(dirs) == 0 {
			return fmt.Errorf("%s holds no Tonel package (a folder with a package.st)", tree)
		}
		for _, d := range dirs {
			target := filepath.Join(src, filepath.Base(d))
			if _, err := os.Stat(target); err == nil {
				return fmt.Errorf("two trees of the corpus hold a package folder %s", filepath.Base(d))
			}
			abs, err := filepath.Abs(d) // a corpus path is the user's, not the repository's
			if err != nil {
				return err
			}
			if err := testenv.CopyTree(abs, target); err != nil {
				return err
			}
		}
	}
	return nil
}

func packageDirs(tree string) ([]string, error) {
	root, single, err := tonel.FindRoot(tree)
	if err != nil {
		return nil, err
	}
	if single {
		return []string{tree}, nil
	}
	return tonel.PackageDirs(root)
}

// corpusHash digests the bytes of every file of the corpus's packages.
func corpusHash(trees []string) (string, error) {
	h := sha256.New()
	for _, tree := range trees {
		dirs, err := packageDirs(tree)
		if err != nil {
			return "", err
		}
		for _, d := range dirs {
			err := filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
				if err != nil || e.IsDir() {
					return err
				}
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(d, path)
				fmt.Fprintf(h, "%s/%s %d\n", filepath.Base(d), rel, len(data))
				h.Write(data)
				return nil
			})
			if err != nil {
				return "", err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Method is a method of the corpus the gate can be asked about.
type Method struct {
	Ref     refactor.MethodRef
	Source  string
	Package string
	Reached bool // a test class sends its selector, directly or through the corpus's methods
}

// Corpus is what the image copy holds: its methods outside the test
// classes, and the names each class uses.
type Corpus struct {
	Methods []Method
	// names holds, per class, its instance, class and class-instance
	// variables; globals the class names of the corpus.
	names   map[string]map[string]bool
	globals map[string]bool
}

// taken answers whether a name is already used around a class's method.
func (c *Corpus) taken(class string) func(string) bool {
	return func(name string) bool { return c.names[class][name] || c.globals[name] }
}

// readCorpus reads the image copy: every method of a class that is not
// a TestCase, and which of them the tests reach.
func readCorpus(dir string) (*Corpus, error) {
	tree, err := tonel.ReadTree(dir)
	if tree == nil {
		return nil, err
	}
	super := map[string]string{}
	c := &Corpus{names: map[string]map[string]bool{}, globals: map[string]bool{}}
	for _, f := range tree.Files() {
		if f.Def.Kind == tonel.KindClass {
			super[f.Def.Name] = f.Def.Superclass
			c.globals[f.Def.Name] = true
			names := map[string]bool{}
			for _, group := range [][]string{f.Def.InstVars, f.Def.ClassVars, f.Def.ClassInstVars} {
				for _, v := range group {
					names[tonel.VarName(v)] = true
				}
			}
			c.names[f.Def.Name] = names
		}
	}
	isTest := func(class string) bool {
		for i := 0; i < 50 && class != ""; i++ {
			if class == "TestCase" {
				return true
			}
			class = super[class]
		}
		return false
	}
	// Inherited names count as taken too (a cycle of superclasses, which
	// no image can hold, stops at the depth bound).
	for class := range c.names {
		s := super[class]
		for depth := 0; depth < 100 && s != ""; depth++ {
			for n := range c.names[s] {
				c.names[class][n] = true
			}
			s = super[s]
		}
	}
	sends := map[string]map[string]bool{} // selector → the selectors its implementors send
	reached := map[string]bool{}
	for _, p := range tree.Packages {
		for _, f := range p.Files {
			for _, m := range f.Methods {
				sent := sentSelectors(m.Source)
				if isTest(m.Class) {
					for s := range sent {
						reached[s] = true
					}
					continue
				}
				if sends[m.Selector] == nil {
					sends[m.Selector] = map[string]bool{}
				}
				for s := range sent {
					sends[m.Selector][s] = true
				}
				c.Methods = append(c.Methods, Method{Source: m.Source, Package: p.Name,
					Ref: refactor.MethodRef{Class: m.Class, Selector: m.Selector, ClassSide: m.Side == tonel.ClassSide}})
			}
		}
	}
	// new sends initialize, in the kernel.
	if reached["new"] {
		reached["initialize"] = true
	}
	// What the tests send reaches what those methods send, and so on.
	queue := make([]string, 0, len(reached))
	for s := range reached {
		queue = append(queue, s)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for t := range sends[s] {
			if !reached[t] {
				reached[t] = true
				queue = append(queue, t)
			}
		}
	}
	for i := range c.Methods {
		c.Methods[i].Reached = reached[c.Methods[i].Ref.Selector]
	}
	sort.SliceStable(c.Methods, func(i, j int) bool { return label(c.Methods[i].Ref) < label(c.Methods[j].Ref) })
	return c, nil
}

// sentSelectors are the selectors a method sends, and the symbols it
// names (perform: and the like).
func sentSelectors(src string) map[string]bool {
	out := map[string]bool{}
	m, err := smalltalk.ParseMethod(src)
	if err != nil {
		return out
	}
	smalltalk.Walk(m, func(n smalltalk.Node) bool {
		switch n := n.(type) {
		case *smalltalk.Message:
			out[n.Selector] = true
		case *smalltalk.Literal:
			if n.Kind == smalltalk.LitSymbol {
				out[n.Value] = true
			}
		}
		return true
	})
	return out
}

// label prints a method as Pharo does: Class>>selector, Class class>>selector.
func label(ref refactor.MethodRef) string {
	if ref.ClassSide {
		return ref.Class + " class>>" + ref.Selector
	}
	return ref.Class + ">>" + ref.Selector
}

// selectMethods picks the methods to evaluate: those named (Class>>selector
// or Class class>>selector), else every method the tests reach and the
// first `unreached` that no test reaches (of those that have mutants).
func selectMethods(c *Corpus, named []string, unreached, perOperator int) ([]Method, error) {
	if len(named) > 0 {
		byLabel := map[string]Method{}
		for _, m := range c.Methods {
			byLabel[label(m.Ref)] = m
		}
		var out []Method
		for _, n := range named {
			m, ok := byLabel[strings.TrimSpace(n)]
			if !ok {
				return nil, fmt.Errorf("EVAL_METHODS: %s is no method of the corpus outside its test classes", n)
			}
			out = append(out, m)
		}
		return out, nil
	}
	var out []Method
	left := unreached
	for _, m := range c.Methods {
		if m.Reached {
			out = append(out, m)
		} else if left > 0 && len(Mutants(m.Source, perOperator)) > 0 {
			out = append(out, m)
			left--
		}
	}
	return out, nil
}
