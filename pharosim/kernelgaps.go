package pharosim

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pharo-refactor/refactord/pharosim/classlib"
	"github.com/pharo-refactor/refactord/pharosim/interp"
	"github.com/pharo-refactor/refactord/smalltalk"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// PackageReport is what pharo-sim's interpreter makes of one package
// before any test runs: what it uses that Pharo's class library has and
// pharo-sim's kernel does not (a test that reaches it errors, or runs
// without it, and means nothing), and what went wrong when its classes
// loaded (a class that did not load, a class-side initialize that failed).
type PackageReport struct {
	Package string // the package's name: its folder's, as Pharo's Tonel reader takes it
	Dir     string // its folder
	// LackedClasses are the classes of the class-library index the
	// package names and neither the kernel nor the tree defines.
	LackedClasses []string
	// LackedSelectors are the selectors the package sends that a class of
	// the index defines and no method of the kernel or the tree does.
	LackedSelectors []string
	// DiskSends are the selectors the package sends that reach for the
	// machine's disk (diskSelectors): the kernel holds its files as paths
	// only, so what reads or writes one errors.
	DiskSends []string
	// LoadFailures are the interpreter's InitializeFailures for the
	// package's classes, in the order loading met them.
	LoadFailures []string
}

// diskSelectors lead to a file of the machine's disk, which the kernel
// lacks on purpose: its FileSystem disk and its references are paths that
// print, compare and serialize, and FileSystem memory is the file system
// that works.
var diskSelectors = map[string]bool{"asFileReference": true, "disk": true, "workingDirectory": true, "imageDirectory": true}

// loadCheckLimits bound the class-side initialize runs of a check.
const (
	loadCheckSteps    = 10_000_000
	loadCheckDuration = time.Minute
)

// CheckPackages reports, per package of files (sorted by name), what the
// kernel lacks that it uses and how its classes load on the interpreter.
// A tree that defines Object brings its own kernel (Pharo's src): nothing
// is reported for it.
func CheckPackages(files []*tonel.File, lib *classlib.Library) ([]PackageReport, error) {
	tree := treeNames(files)
	if tree.classes["Object"] {
		return nil, nil
	}
	kernelClasses, kernelSelectors, err := interp.KernelNames()
	if err != nil {
		return nil, fmt.Errorf("reading the kernel: %w", err)
	}
	reports := map[string]*PackageReport{}
	report := func(f *tonel.File) *PackageReport {
		dir := filepath.Dir(f.Path)
		r, ok := reports[dir]
		if !ok {
			r = &PackageReport{Package: filepath.Base(dir), Dir: dir}
			reports[dir] = r
		}
		return r
	}
	classesOf := map[string]*PackageReport{}
	for _, f := range files {
		r := report(f)
		if f.Def.Kind == tonel.KindClass || f.Def.Kind == tonel.KindTrait {
			classesOf[f.Def.Name] = r
		}
		lackedClasses, lackedSelectors, diskSends := map[string]bool{}, map[string]bool{}, map[string]bool{}
		for _, m := range f.Methods {
			parsed, err := smalltalk.ParseMethod(m.Source)
			if err != nil {
				continue // check reports it as a broken method
			}
			info := parsed.Info()
			local := map[string]bool{}
			for _, n := range append(info.Args, info.Temps...) {
				local[n] = true
			}
			for _, n := range info.Referenced {
				if smalltalk.IsClassName(n) && !local[n] && !tree.classes[n] && !tree.shared[n] && !kernelClasses[n] {
					if _, ok := lib.Class(n); ok {
						lackedClasses[n] = true
					}
				}
			}
			for _, s := range info.Sends {
				if !tree.selectors[s] && !kernelSelectors[s] && lib.DefinedAnywhere(s) {
					lackedSelectors[s] = true
				}
				if diskSelectors[s] && !tree.selectors[s] {
					diskSends[s] = true
				}
			}
		}
		r.LackedClasses = mergeSorted(r.LackedClasses, lackedClasses)
		r.LackedSelectors = mergeSorted(r.LackedSelectors, lackedSelectors)
		r.DiskSends = mergeSorted(r.DiskSends, diskSends)
	}
	in, err := interp.New(interp.ReadProgram(files), interp.Limits{Steps: loadCheckSteps, Deadline: time.Now().Add(loadCheckDuration)})
	if err != nil {
		return nil, fmt.Errorf("loading the packages on the interpreter: %w", err)
	}
	for _, failure := range in.InitializeFailures() {
		class, _, _ := strings.Cut(failure, " ")
		if r, ok := classesOf[class]; ok {
			r.LoadFailures = append(r.LoadFailures, failure)
		}
	}
	out := make([]PackageReport, 0, len(reports))
	for _, r := range reports {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, nil
}

// names is what a tree defines: classes and traits, the class and pool
// variables its classes share (capitalized like classes), and the
// selectors of its methods.
type names struct {
	classes, shared, selectors map[string]bool
}

func treeNames(files []*tonel.File) names {
	n := names{classes: map[string]bool{}, shared: map[string]bool{}, selectors: map[string]bool{}}
	for _, f := range files {
		if f.Def.Kind == tonel.KindClass || f.Def.Kind == tonel.KindTrait {
			n.classes[f.Def.Name] = true
			for _, v := range append(append([]string{}, f.Def.ClassVars...), f.Def.ClassInstVars...) {
				n.shared[v] = true
			}
		}
		for _, m := range f.Methods {
			n.selectors[m.Selector] = true
		}
	}
	return n
}

// mergeSorted answers the names of both, sorted, each once.
func mergeSorted(list []string, more map[string]bool) []string {
	for _, n := range list {
		more[n] = true
	}
	out := make([]string, 0, len(more))
	for n := range more {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
