package pharosim

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// The image takes in edits made to its files on disk, whether it watches
// the folders (Linux) or checks the files on each call (elsewhere, or when
// the watch cannot be had): both ways are run.
var diskModes = []struct {
	name  string
	apply func(t *testing.T, img *Image)
}{
	{"watched", func(t *testing.T, img *Image) {
		if !img.disk.watching() {
			t.Skip("this system gives no folder watch")
		}
	}},
	{"checked", func(t *testing.T, img *Image) { require.NoError(t, img.Close()) }},
}

// editFile rewrites a file on disk in place (same inode), as an editor or
// a test would, replacing old by new once.
func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	text := readFile(t, path)
	require.Contains(t, text, old)
	require.NoError(t, writeFile(path, strings.Replace(text, old, new, 1)))
}

func TestAnEditOnDiskSurvivesACompileOfTheSameClass(t *testing.T) {
	t.Parallel()
	for _, mode := range diskModes {
		t.Run(mode.name, func(t *testing.T) {
			img, root := loadTestImage(t)
			mode.apply(t, img)
			path := fileOf(root, "Sample-Shop", "Calculator.class.st")
			key := mustKey(t, "Calculator>>divide:by:")
			_, err := img.MethodSource(key)
			require.NoError(t, err)

			// between two tool calls, someone edits the class on disk
			editFile(t, path, "\tb isZero ifTrue: [ ^ nil ].\n\t^ a / b\n", "\t^ b isZero ifFalse: [ a / b ] \"edited on disk\"\n")
			src, err := img.MethodSource(key)
			require.NoError(t, err)
			assert.Equal(t, "divide: a by: b\n\t\"Answer a divided by b, or nil when b is zero\"\n\n\t^ b isZero ifFalse: [ a / b ] \"edited on disk\"", src,
				"a read sees the edit")

			// then a compile of another method of the same class
			_, err = img.Compile("Calculator", InstanceSide, "sum: a with: b\n\t^ b + a", "")
			require.NoError(t, err)
			onDisk := readFile(t, path)
			assert.Contains(t, onDisk, "\"edited on disk\"", "the compile did not write a stale copy over the edit")
			assert.Contains(t, onDisk, "Calculator >> sum: a with: b [\n\t^ b + a\n]")
			src, err = img.MethodSource(key)
			require.NoError(t, err)
			assert.Contains(t, src, "\"edited on disk\"")
			assert.Equal(t, []Reference{{Class: "Calculator", Method: "divide:by:", Package: "Sample-Shop"}},
				filterClass(img.References("ifFalse:"), "Calculator"), "the indexes took the edit in")
		})
	}
}

func filterClass(refs []Reference, class string) []Reference {
	var out []Reference
	for _, r := range refs {
		if r.Class == class {
			out = append(out, r)
		}
	}
	return out
}

func TestFilesAddedBrokenAndDeletedOnDisk(t *testing.T) {
	t.Parallel()
	for _, mode := range diskModes {
		t.Run(mode.name, func(t *testing.T) {
			img, root := loadTestImage(t)
			mode.apply(t, img)
			added := fileOf(root, "Sample-Shop", "Gadget.class.st")
			require.NoError(t, writeFile(added, "Class { #name : 'Gadget', #superclass : 'Object', #package : 'Sample-Shop' }\n\n{ #category : 'x' }\nGadget >> spin [\n\t^ self zorkWith: 1\n]\n"))
			assert.Contains(t, img.ClassesLike("Gad"), "Gadget", "a new file is a new class")
			assert.Empty(t, img.Implementors("zorkWith:"))
			assert.Equal(t, []Reference{{Class: "Gadget", Method: "spin", Package: "Sample-Shop"}}, img.References("zorkWith:"))

			require.NoError(t, writeFile(added, "Class { #name : 'Gadget' }\n\nGadget >> spin [\n\t^ 'unterminated\n"))
			assert.False(t, img.HasGlobal("Gadget"), "a file that no longer reads leaves the image")
			assert.Empty(t, img.References("zorkWith:"))
			skipped := img.Skipped()
			require.Len(t, skipped, 1)
			assert.Equal(t, added, skipped[0].Path)
			assert.Equal(t, 4, skipped[0].Line)

			require.NoError(t, writeFile(added, "Class { #name : 'Gadget' }\n\n{ #category : 'x' }\nGadget >> spin [\n\t^ 2\n]\n"))
			assert.True(t, img.HasGlobal("Gadget"), "fixed, it comes back")
			assert.Empty(t, img.Skipped())

			require.NoError(t, os.Remove(added))
			assert.False(t, img.HasGlobal("Gadget"), "a deleted file leaves the image")
			assert.Empty(t, img.Implementors("spin"))
		})
	}
}

func TestTheImagesOwnWritesAreNotTakenForEdits(t *testing.T) {
	t.Parallel()
	img, root := loadTestImage(t)
	path := fileOf(root, "Sample-Shop", "Calculator.class.st")
	for i := range 5 {
		_, err := img.Compile("Calculator", InstanceSide, fmt.Sprintf("sum: a with: b\n\t^ a + b + %d", i), "")
		require.NoError(t, err)
		src, err := img.MethodSource(mustKey(t, "Calculator>>sum:with:"))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("sum: a with: b\n\t^ a + b + %d", i), src)
	}
	assert.Contains(t, readFile(t, path), "^ a + b + 4")
}

// brute is what a full scan of the files on disk finds: the answers the
// indexes must give.
type brute struct {
	implementors, references, classRefs map[string][]Reference
}

func scanTree(t *testing.T, root string) brute {
	t.Helper()
	tree, err := tonel.ReadTree(root)
	require.NoError(t, err)
	b := brute{map[string][]Reference{}, map[string][]Reference{}, map[string][]Reference{}}
	for _, p := range tree.Packages {
		for _, f := range p.Files {
			for _, m := range f.Methods {
				cls := f.Def.Name
				if m.Side == ClassSide {
					cls += " class"
				}
				ref := Reference{Class: cls, Method: m.Selector, Package: p.Name}
				b.implementors[m.Selector] = append(b.implementors[m.Selector], ref)
				terms := termsOf(m.Source)
				for _, r := range terms.refs {
					b.references[r] = append(b.references[r], ref)
				}
				for _, c := range terms.classes {
					b.classRefs[c] = append(b.classRefs[c], ref)
				}
			}
		}
	}
	for _, m := range []map[string][]Reference{b.implementors, b.references, b.classRefs} {
		for k, refs := range m {
			sort.Slice(refs, func(i, j int) bool {
				if refs[i].Class != refs[j].Class {
					return refs[i].Class < refs[j].Class
				}
				return refs[i].Method < refs[j].Method
			})
			m[k] = refs
		}
	}
	return b
}

// assertIndexesMatchTheDisk compares every search with a full scan.
func assertIndexesMatchTheDisk(t *testing.T, img *Image, root string) {
	t.Helper()
	b := scanTree(t, root)
	for sel, want := range b.implementors {
		assert.Equal(t, want, img.Implementors(sel), "implementors of %s", sel)
	}
	for term, want := range b.references {
		assert.Equal(t, want, img.References(term), "references to %s", term)
	}
	for name, want := range b.classRefs {
		if img.HasGlobal(name) {
			got, err := img.ReferencesToClass(name)
			require.NoError(t, err)
			assert.Equal(t, want, got, "references to class %s", name)
		}
	}
	img.mu.Lock()
	defer img.mu.Unlock()
	assert.Len(t, img.idx.implementors, len(b.implementors), "no stale selector in the index")
	assert.Len(t, img.idx.references, len(b.references), "no stale reference in the index")
	assert.Len(t, img.idx.classRefs, len(b.classRefs), "no stale class reference in the index")
}

func TestIndexesFollowCompilesRemovesAndDiskEdits(t *testing.T) {
	t.Parallel()
	for _, mode := range diskModes {
		t.Run(mode.name, func(t *testing.T) {
			img, root := loadTestImage(t)
			mode.apply(t, img)
			assertIndexesMatchTheDisk(t, img, root)

			steps := []func() error{
				func() error { // a send added, one removed
					_, err := img.Compile("Calculator", InstanceSide, "sum: a with: b\n\t^ a plus: b using: Fraction", "")
					return err
				},
				func() error { // a new method
					_, err := img.Compile("Calculator", ClassSide, "pi\n\t^ #(3 1 4) inject: 0 into: [ :x :y | x max: y ]", "constants")
					return err
				},
				func() error { // a method of an extension
					_, err := img.Compile("String", InstanceSide, "whisper\n\t^ self asLowercase , OrderedCollection new printString", "*Sim-Extras")
					return err
				},
				func() error {
					_, err := img.Remove("Calculator", InstanceSide, "average:")
					return err
				},
				func() error { // a disk edit renames a method
					editFile(t, fileOf(root, "Sample-Shop", "Calculator.class.st"), "Calculator >> memory [", "Calculator >> memoryValue [")
					return nil
				},
				func() error { // a disk edit changes what a method sends
					editFile(t, fileOf(root, "Sample-Shop", "Calculator.class.st"), "^ a / b\n", "^ a quo: b\n")
					return nil
				},
				func() error { // and the compile after it
					_, err := img.Compile("Calculator", InstanceSide, "memoryValue\n\t^ memory ifNil: [ Smalltalk at: #Zero ]", "")
					return err
				},
			}
			for i, step := range steps {
				require.NoError(t, step(), "step %d", i)
				assertIndexesMatchTheDisk(t, img, root)
			}
		})
	}
}

func TestSkippedFilesAreReportedAndTheRestServed(t *testing.T) {
	t.Parallel()
	root := testenv.SimTree(t)
	src := filepath.Join(root, "src")
	require.NoError(t, writeFile(filepath.Join(src, "Sample-Shop", "Broken1.class.st"), "Class { #name : 'Broken1' }\n\nBroken1 >> a [\n\t^ 'x\n]\n"))
	require.NoError(t, writeFile(filepath.Join(src, "Sample-Shop", "Broken2.class.st"), "Class {\n\t#name : 'Broken2',\n\t#superclass 'Object'\n}\n"))
	require.NoError(t, os.MkdirAll(filepath.Join(src, "scripts"), 0o755))
	require.NoError(t, writeFile(filepath.Join(src, "scripts", "load.st"), "Metacello new load.\n"))

	c, s := inProcess(t, Options{Dir: root})
	status := s.Image().Status()
	require.Len(t, status.SkippedFiles, 2)
	assert.Equal(t, SkippedFile{Path: filepath.Join(src, "Sample-Shop", "Broken1.class.st"), Line: 4, Column: 4,
		Reason: "unterminated string in Broken1 >> a"}, status.SkippedFiles[0])
	assert.Equal(t, filepath.Join(src, "Sample-Shop", "Broken2.class.st"), status.SkippedFiles[1].Path)
	assert.Equal(t, 3, status.SkippedFiles[1].Line)
	assert.Equal(t, 2, status.Packages, "scripts/ holds no package.st: it is no package")

	env, _ := call(t, c, "get_settings", nil)
	require.True(t, env.Success)
	assert.Contains(t, string(env.Result), `"skipped_files":[{"file":"`+filepath.Join(src, "Sample-Shop", "Broken1.class.st"))
	assert.Contains(t, string(env.Result), `"skipped_folders":["`+filepath.Join(src, "scripts")+`"]`, "the folder without package.st is named")
	env, _ = call(t, c, "get_method_source", map[string]any{"class_name": "Calculator", "method_name": "sum:with:"})
	assert.True(t, env.Success, "the rest of the image is served")

	init, err := c.Initialize(t.Context(), initializeRequest())
	require.NoError(t, err)
	assert.Contains(t, init.Instructions, "2 file(s) of the Tonel tree could not be read")
	assert.Contains(t, init.Instructions, "Broken1.class.st:4:4: unterminated string in Broken1 >> a")
}

func TestEscapedMetadataInTheImage(t *testing.T) {
	t.Parallel()
	root := testenv.SimTree(t)
	path := filepath.Join(root, "src", "Sample-Shop", "Quoting.class.st")
	text := "Class {\n\t#name : 'Quoting',\n\t#superclass : 'Object',\n\t#instVars : [\n\t\t'#owner => ToOneRelationSlot inverse: #items inClass: #\\'Basket\\''\n\t],\n\t#category : 'Sample-Shop'\n}\n\n" +
		"{ #category : 'drag\\'n\\'drop' }\nQuoting >> drop [\n\t^ owner\n]\n"
	require.NoError(t, writeFile(path, text))
	img, err := LoadImage(root, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	require.Empty(t, img.Skipped())

	proto, err := img.Protocol(mustKey(t, "Quoting>>drop"))
	require.NoError(t, err)
	assert.Equal(t, "drag'n'drop", proto)
	assert.Equal(t, "OK", img.DryCompile("Quoting", InstanceSide, "drop\n\t^ owner"), "a slot declares its variable")

	_, err = img.Compile("Quoting", InstanceSide, "drop\n\t^ owner yourself", "")
	require.NoError(t, err)
	_, err = img.Compile("Quoting", InstanceSide, "lift\n\t^ 1", "it's")
	require.NoError(t, err)
	onDisk := readFile(t, path)
	assert.Contains(t, onDisk, "{ #category : 'drag\\'n\\'drop' }\nQuoting >> drop [\n\t^ owner yourself\n]")
	assert.Contains(t, onDisk, "{ #category : 'it\\'s' }\nQuoting >> lift [")
	assert.Contains(t, onDisk, "#\\'Basket\\''", "the header is untouched")

	cls, err := img.ClassSource("Quoting")
	require.NoError(t, err)
	assert.Contains(t, cls, "{ #category : 'drag\\'n\\'drop' }")
}

// hugeClass is a class file of n methods in Pharo 12's style.
func hugeClass(n int) string {
	var b strings.Builder
	b.WriteString("Class {\n\t#name : 'Huge',\n\t#superclass : 'Object',\n\t#instVars : [\n\t\t'a'\n\t],\n\t#package : 'Sample-Shop'\n}\n")
	for i := range n {
		fmt.Fprintf(&b, "\n{ #category : 'accessing' }\nHuge >> m%04d: x [\n\n\t^ self m%04d: x + a\n]\n", i, (i+1)%n)
	}
	return b.String()
}

func TestA3000MethodClassInTheImage(t *testing.T) {
	t.Parallel()
	root := testenv.SimTree(t)
	path := filepath.Join(root, "src", "Sample-Shop", "Huge.class.st")
	require.NoError(t, writeFile(path, hugeClass(3000)))
	img, err := LoadImage(root, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	assert.Equal(t, []Reference{{Class: "Huge", Method: "m0000:", Package: "Sample-Shop"}}, img.References("m0001:"))

	_, err = img.Compile("Huge", InstanceSide, "m1500: x\n\t^ x", "")
	require.NoError(t, err)
	assert.Empty(t, img.References("m1501:"), "the send left with the new source")
	assert.Len(t, img.Implementors("m2999:"), 1)
	src, err := img.MethodSource(mustKey(t, "Huge>>m2999:"))
	require.NoError(t, err)
	assert.Equal(t, "m2999: x\n\n\t^ self m0000: x + a", src)
	assertIndexesMatchTheDisk(t, img, root)
}
