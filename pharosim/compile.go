package pharosim

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pharo-refactor/refactord/smalltalk"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// Messages of the semantic errors the dry compile reports, in Pharo 12/13's
// words, and its answer when there is none.
const (
	msgUndeclared  = "Undeclared variable"
	msgCannotStore = "Cannot store into"
	dryCompileOK   = "OK"
)

// The parts of a CodeError description: the notice class, the receiver and
// selector of an evaluated doIt, and how much source follows the position.
const (
	noticeClass       = "OCSyntaxErrorNotice"
	doItReceiver      = "UndefinedObject"
	doItSelectorLabel = "DoIt"
	maxSnippetRunes   = 60
)

// charPos converts a byte offset into src to Pharo's 1-based character
// position.
func charPos(src string, offset int) int {
	offset = max(0, min(offset, len(src)))
	return utf8.RuneCountInString(src[:offset]) + 1
}

// DryCompile compiles source in a class and side without installing it, and
// answers what expression 2 of docs/pharo-interop.md answers: "OK" or
// "ERR|<position>|<message>". A missing class is caught by that expression's
// handler too, so it comes back as "ERR|?|key #Foo not found in …".
func (img *Image) DryCompile(className string, side Side, source string) string {
	img.mu.Lock()
	defer img.mu.Unlock()
	_, ierr := img.freshClass(className)
	if ierr != nil && !img.isGlobal(className) {
		return "ERR|?|" + ierr.Message
	}
	m, err := smalltalk.ParseMethod(source)
	if err != nil {
		se := syntaxError(err)
		return "ERR|" + strconv.Itoa(charPos(source, se.Offset)) + "|" + se.Message
	}
	if ref, msg, bad := img.semanticError(className, side, m); bad {
		return "ERR|" + strconv.Itoa(charPos(source, ref.Start)) + "|" + msg
	}
	return dryCompileOK
}

// syntaxError extracts the parser's error; any other error is a parser bug
// reported at the start.
func syntaxError(err error) *smalltalk.SyntaxError {
	var se *smalltalk.SyntaxError
	if errors.As(err, &se) {
		return se
	}
	return &smalltalk.SyntaxError{Message: err.Error()}
}

// semanticError finds the first complaint Pharo 12's semantic analysis makes
// (by position): an undeclared variable or a store into an argument or
// pseudo-variable.
func (img *Image) semanticError(className string, side Side, m *smalltalk.Method) (smalltalk.Ref, string, bool) {
	known := img.scope(className, side)
	capitalised, lowercase := smalltalk.Undeclared(m, known.has)
	type complaint struct {
		ref smalltalk.Ref
		msg string
	}
	var all []complaint
	for _, r := range append(capitalised, lowercase...) {
		if known.pools && isUpper(r.Name) {
			continue // a pool variable the simulator cannot see
		}
		all = append(all, complaint{r, msgUndeclared})
	}
	for _, r := range smalltalk.ArgumentAssignments(m) {
		all = append(all, complaint{r, msgCannotStore})
	}
	if len(all) == 0 {
		return smalltalk.Ref{}, "", false
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].ref.Start < all[j].ref.Start })
	return all[0].ref, all[0].msg, true
}

func isUpper(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }

// scope is what a method of a class and side may name besides its own
// arguments and temporaries.
type scope struct {
	vars  map[string]bool
	img   *Image
	pools bool // the class uses pool dictionaries, whose variables are unknown
}

func (s scope) has(name string) bool {
	return s.vars[name] || s.img.isGlobal(name)
}

// scope collects the instance (or class-instance) variables and class
// variables of the class and its superclasses: the tree's classes, and the
// class library's where the tree does not define one. className may name a
// class the tree does not hold.
func (img *Image) scope(className string, side Side) scope {
	s := scope{vars: map[string]bool{}, img: img}
	name := className
	for range maxHierarchy {
		if name == "" {
			break
		}
		if c, ok := img.classes[name]; ok && c.def != nil {
			d := c.def.def
			vars := d.InstVars
			if side == ClassSide {
				vars = d.ClassInstVars
			}
			for _, v := range append(append([]string{}, vars...), d.ClassVars...) {
				s.vars[tonel.VarName(v)] = true // a slot is written `#name => Slot …`
			}
			s.pools = s.pools || len(d.Pools) > 0
		} else if lc, ok := img.lib.Class(name); ok {
			for _, v := range append(lc.Vars(side), lc.ClassVars()...) {
				s.vars[v] = true
			}
			s.pools = s.pools || lc.UsesPools()
		}
		name = img.superclassOf(name)
	}
	return s
}

// codeError is how the image describes a syntax error in code it was asked
// to compile or evaluate: `CodeError:<notice class> <class>>>#<selector>
// <position>:<message>-><source from that position…>`.
func codeError(receiver, selector, source string, se *smalltalk.SyntaxError) *ImageError {
	rest := source[max(0, min(se.Offset, len(source))):]
	if utf8.RuneCountInString(rest) > maxSnippetRunes {
		rest = string([]rune(rest)[:maxSnippetRunes]) + "…"
	}
	text := fmt.Sprintf("CodeError:%s %s>>#%s %d:%s->%s",
		noticeClass, receiver, selector, charPos(source, se.Offset), se.Message, rest)
	return &ImageError{Text: text, Class: "CodeError", Message: se.Message, Receiver: "OpalCompiler"}
}

// storedSource is the form a source takes in the Tonel file: LF line
// endings, nothing before its pattern. What ends it stays — blank lines,
// and spaces after its last statement (Pharo keeps a method's source as it
// was compiled, and its Tonel writer writes it so): get_method_source
// answers them, so a method compiled back as it was read (a rollback's
// restore) leaves its file byte for byte as it was.
func storedSource(source string) string {
	return strings.TrimLeft(toLF(source), " \t\n\f\v")
}

// Compile installs a method in a class and side and writes the class's file
// through. An empty protocol keeps the existing method's protocol, or gives
// a new method Pharo's default. It answers the selector, as
// `compile:classified:` does.
func (img *Image) Compile(className string, side Side, source, protocol string) (string, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	c, ierr := img.classOnDisk(className)
	if ierr != nil {
		return "", ierr
	}
	m, err := smalltalk.ParseMethod(source)
	if err != nil {
		return "", codeError(classLabel(className, side), doItSelectorLabel, source, syntaxError(err))
	}
	stored := storedSource(source)
	var f *srcFile
	var change func(*tonel.File) error
	if id := img.findMethod(c, side, m.Selector); id >= 0 {
		f = img.methods.rec(id).file
		change = func(tf *tonel.File) error { return tf.ReplaceMethod(side, m.Selector, stored, protocol) }
	} else if f = c.home(); f != nil {
		change = func(tf *tonel.File) error { return tf.AddMethod(side, stored, protocol) }
	} else {
		return "", fmt.Errorf("class %s has no file to hold new methods", className)
	}
	if err := img.writeThrough(f, change); err != nil {
		return "", fmt.Errorf("compiling %s>>%s: %w", classLabel(className, side), m.Selector, err)
	}
	img.log.Info("compiled", "class", classLabel(className, side), "selector", m.Selector, "file", f.path)
	return m.Selector, nil
}

// classOnDisk reads the class's files again, whatever their stamps say,
// and finds the class: a change is about to be written over them, and an
// edit made on disk since the image last looked must not be lost.
func (img *Image) classOnDisk(className string) (*class, *ImageError) {
	if img.disk.watching() {
		img.refresh()
	}
	if c, ok := img.classes[className]; ok {
		for _, f := range c.files() {
			img.checkFile(f.path, true)
		}
	}
	return img.lookupClass(className)
}

// Remove removes a method and writes its file through. It reports whether
// there was such a method (removing an absent one is not an error).
func (img *Image) Remove(className string, side Side, selector string) (bool, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	c, ierr := img.classOnDisk(className)
	if ierr != nil {
		return false, ierr
	}
	id := img.findMethod(c, side, selector)
	if id < 0 {
		return false, nil
	}
	f := img.methods.rec(id).file
	err := img.writeThrough(f, func(tf *tonel.File) error { return tf.RemoveMethod(side, selector) })
	if err != nil {
		return false, fmt.Errorf("removing %s>>%s: %w", classLabel(className, side), selector, err)
	}
	img.log.Info("removed", "class", classLabel(className, side), "selector", selector, "file", f.path)
	return true, nil
}

// writeThrough applies a change to the file's text and saves it atomically;
// only then does the image take the new text in. If the change or the save
// fails, the image keeps what the disk holds. The caller holds the lock and
// has just checked the file against the disk.
func (img *Image) writeThrough(f *srcFile, change func(*tonel.File) error) error {
	tf, err := tonel.ParseFile(f.path, []byte(f.text))
	if err != nil {
		return fmt.Errorf("reading %s again: %w", f.path, err)
	}
	if err := change(tf); err != nil {
		return err
	}
	if err := tf.Save(); err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	var st stamp
	if info, err := os.Stat(f.path); err == nil {
		st = stampOf(info)
	}
	return img.replaceFile(f, tf, st)
}

// classLabel prints a class and side: `Foo` or `Foo class`.
func classLabel(className string, side Side) string {
	if side == ClassSide {
		return className + " class"
	}
	return className
}
