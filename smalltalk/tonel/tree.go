package tonel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Tree is a Tonel repository read from disk.
type Tree struct {
	Root     string     // the directory holding the package folders
	Packages []*Package // sorted by folder name
}

// Package is one package folder and the files in it.
type Package struct {
	Name       string // from package.st, else the folder name
	Dir        string
	Def        *File   // package.st; nil when the folder has none
	Classes    []*File // Class definitions, sorted by file name
	Traits     []*File
	Extensions []*File
	Files      []*File // every file above (package.st included), sorted by file name
}

// ReadTree reads a Tonel repository root (holding `src/.properties`,
// `.properties` or a `.project` naming the source folder — or, without any
// of them, package folders directly or under src), a single package folder
// (holding package.st), or a single `.st` file.
//
// Only folders holding a package.st are packages, as for Pharo's Tonel
// reader: a repository's other folders (load scripts, documentation) are
// ignored, whatever files they hold.
//
// Files that fail to parse are left out and their errors are returned
// joined (errors.Join), one per file — a *ParseError, or the I/O error
// naming the file — together with the tree of everything that did parse,
// so that a checker can report every broken file at once and a server can
// start on the rest. A path that is not a Tonel tree gives a nil tree.
func ReadTree(path string) (*Tree, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("tonel: %w", err)
	}
	if !info.IsDir() {
		return readSingleFile(path)
	}
	if isRegular(filepath.Join(path, "package.st")) {
		pkg, err := readPackage(path)
		if pkg == nil {
			return nil, err
		}
		return &Tree{Root: filepath.Dir(path), Packages: []*Package{pkg}}, err
	}
	root, err := findRoot(path)
	if err != nil {
		return nil, err
	}
	return readRoot(root)
}

// readSingleFile makes a one-file tree; the package is named after the
// class's #package, else after the folder.
func readSingleFile(path string) (*Tree, error) {
	f, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	pkg := &Package{Name: filepath.Base(dir), Dir: dir}
	if f.Def.Package != "" {
		pkg.Name = f.Def.Package
	}
	pkg.add(f)
	return &Tree{Root: filepath.Dir(dir), Packages: []*Package{pkg}}, nil
}

// findRoot returns the folder that holds the package folders of the
// repository at dir.
func findRoot(dir string) (string, error) {
	if src, ok, err := projectSourceDir(dir); err != nil || ok {
		return src, err
	}
	candidates := []string{filepath.Join(dir, "src"), dir}
	for _, c := range candidates {
		props := filepath.Join(c, ".properties")
		if isRegular(props) {
			return c, checkProperties(props)
		}
	}
	for _, c := range candidates {
		if dirs, _ := packageDirs(c); len(dirs) > 0 {
			return c, nil
		}
	}
	return "", fmt.Errorf("tonel: %s is not a Tonel repository: no .properties and no package folders", dir)
}

// projectSourceDir reads `.project` (`{ 'srcDirectory' : 'src' }`), written
// by newer Iceberg versions.
func projectSourceDir(dir string) (string, bool, error) {
	path := filepath.Join(dir, ".project")
	if !isRegular(path) {
		return "", false, nil
	}
	values, err := readMapFile(path)
	if err != nil {
		return "", false, err
	}
	v, ok := values["srcDirectory"]
	if !ok || v.text == "" {
		return "", false, nil
	}
	src := filepath.Join(dir, v.text)
	if props := filepath.Join(src, ".properties"); isRegular(props) {
		return src, true, checkProperties(props)
	}
	return src, true, nil
}

// checkProperties fails when .properties names a format other than Tonel.
func checkProperties(path string) error {
	values, err := readMapFile(path)
	if err != nil {
		return err
	}
	if v, ok := values["format"]; ok && v.text != "tonel" {
		return fmt.Errorf("tonel: %s: format %q is not tonel", path, v.text)
	}
	return nil
}

// readMapFile reads a file holding one STON-like map of simple values.
func readMapFile(path string) (map[string]value, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tonel: %w", err)
	}
	f := &File{Path: path, src: data, text: bytesAsString(data)}
	open := skipBlanks(data, 0)
	if open >= len(data) || data[open] != '{' {
		return nil, f.errorAt(open, "'{' expected")
	}
	entries, _, serr := parseMap(data, open)
	if serr != nil {
		return nil, f.errorAt(serr.off, serr.msg)
	}
	values := make(map[string]value, len(entries))
	for _, e := range entries {
		v, serr := parseValue(string(data[e.valStart:e.valEnd]), e.valStart)
		if serr != nil {
			return nil, f.errorAt(serr.off, serr.msg)
		}
		values[e.key] = v
	}
	return values, nil
}

// readRoot reads every package folder under root.
func readRoot(root string) (*Tree, error) {
	dirs, err := packageDirs(root)
	if err != nil {
		return nil, err
	}
	t := &Tree{Root: root}
	var errs []error
	for _, d := range dirs {
		pkg, pkgErrs := readPackageFiles(d)
		errs = append(errs, pkgErrs...)
		if pkg != nil {
			t.Packages = append(t.Packages, pkg)
		}
	}
	return t, errors.Join(errs...)
}

// packageDirs lists the subfolders of root that hold a package.st, sorted.
func packageDirs(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("tonel: %w", err)
	}
	var dirs []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if isRegular(filepath.Join(dir, "package.st")) {
			dirs = append(dirs, dir)
		}
	}
	return dirs, nil
}

// IsPackageDir reports whether dir is a package folder: it holds package.st.
func IsPackageDir(dir string) bool { return isRegular(filepath.Join(dir, "package.st")) }

// stFiles lists the `.st` files of a folder, sorted by name.
func stFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("tonel: %w", err)
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".st") {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(files)
	return files, nil
}

// readPackage reads one package folder. It returns the package with the
// files that parsed and the joined errors of those that did not.
func readPackage(dir string) (*Package, error) {
	pkg, errs := readPackageFiles(dir)
	return pkg, errors.Join(errs...)
}

// readPackageFiles reads one package folder: the package with the files
// that parsed, and one error per file that did not.
func readPackageFiles(dir string) (*Package, []error) {
	files, err := stFiles(dir)
	if err != nil {
		return nil, []error{err}
	}
	pkg := &Package{Name: filepath.Base(dir), Dir: dir}
	var errs []error
	for _, path := range files {
		f, err := ReadFile(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pkg.add(f)
	}
	if pkg.Def != nil {
		pkg.Name = pkg.Def.Def.Name
	}
	return pkg, errs
}

// PackageName answers the name a package folder gets: the #name of its
// package definition, else the folder's name.
func PackageName(dir string, def *File) string {
	if def != nil && def.Def.Name != "" {
		return def.Def.Name
	}
	return filepath.Base(dir)
}

// StFiles lists the `.st` files of a folder, sorted by name.
func StFiles(dir string) ([]string, error) { return stFiles(dir) }

// FindRoot answers the folder holding the package folders of the Tonel
// tree at path (see ReadTree), and whether path is a single package
// folder, so that a reader can walk the tree itself.
func FindRoot(path string) (root string, single bool, err error) {
	if IsPackageDir(path) {
		return filepath.Dir(path), true, nil
	}
	root, err = findRoot(path)
	return root, false, err
}

// PackageDirs lists the package folders (those holding package.st) under a
// root that FindRoot answered, sorted.
func PackageDirs(root string) ([]string, error) { return packageDirs(root) }

// add files f under its kind.
func (p *Package) add(f *File) {
	p.Files = append(p.Files, f)
	switch f.Def.Kind {
	case KindClass:
		p.Classes = append(p.Classes, f)
	case KindTrait:
		p.Traits = append(p.Traits, f)
	case KindExtension:
		p.Extensions = append(p.Extensions, f)
	case KindPackage:
		if p.Def == nil {
			p.Def = f
		}
	}
}

// Files returns every file of the tree: packages in order, each package's
// files sorted by name.
func (t *Tree) Files() []*File {
	var out []*File
	for _, p := range t.Packages {
		out = append(out, p.Files...)
	}
	return out
}

// Package returns the package with that name, or nil.
func (t *Tree) Package(name string) *Package {
	for _, p := range t.Packages {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Class returns the file defining the class or trait with that name, or nil.
func (t *Tree) Class(name string) *File {
	for _, f := range t.Files() {
		if (f.Def.Kind == KindClass || f.Def.Kind == KindTrait) && f.Def.Name == name {
			return f
		}
	}
	return nil
}

// ExtensionsOf returns the extension files that add methods to the class
// with that name, in tree order.
func (t *Tree) ExtensionsOf(name string) []*File {
	var out []*File
	for _, f := range t.Files() {
		if f.Def.Kind == KindExtension && f.Def.Name == name {
			out = append(out, f)
		}
	}
	return out
}

// isRegular reports whether path is an existing regular file.
func isRegular(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// UnpackagedDirs lists the subfolders of a root that FindRoot answered
// which hold .st files but no package.st, sorted: Pharo's Tonel reader
// ignores them, and so do ReadTree and PackageDirs, but a person may want
// to know that their code was not read.
func UnpackagedDirs(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("tonel: %w", err)
	}
	var dirs []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if IsPackageDir(dir) {
			continue
		}
		if files, err := stFiles(dir); err == nil && len(files) > 0 {
			dirs = append(dirs, dir)
		}
	}
	return dirs, nil
}
