package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWhatSTONsTestsUseAnswersAsPharo: the kernel's Text, Symbol's table
// of interned symbols and the in-memory file system, as Pharo 13's
// STON-Tests use them, with the answers Pharo 13 gives (commit 9b55ea4 of
// pharo-project/pharo; each group names the method that holds the answer).
func TestWhatSTONsTestsUseAnswersAsPharo(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, expr, want string }{
		// Text>>printOn: (printNameOn:, ' for ', the string printed), String>>asText, Text class>>new: (fromString:)
		{"a Text prints its string", "'Text!' asText printString", "'a Text for ''Text!'''"},
		{"an empty Text", "{ Text new size. (Text new: 3) size. Text new printString }", "#(0 3 'a Text for ''''')"},
		// Text>>= (a Text or a String of the same characters, whatever the attributes), String>>= (aString isString), Text>>hash
		{"a Text equals a Text or a String of its characters; a String equals no Text", "{ 'abc' asText = 'abc'. 'abc' asText = 'abd' asText. ('abc' asText addAttribute: TextEmphasis bold; yourself) = 'abc' asText. 'abc' = 'abc' asText. 'abc' asText hash = 'abc' hash }", "#(true false true false true)"},
		// Text class>>string:attribute: (RunArray new:withAll: of the attributes), Text>>, (copyReplaceFrom:to:with:, the runs replaced too)
		{"a Text's runs hold each character's attributes", "((Text string: 'I am bold' attribute: TextEmphasis bold), ' and') runs runs", "#(9 4)"},
		{"a Text's runs values are Arrays of attributes", "(Text string: 'ab' attribute: TextEmphasis bold) runs values first first emphasisCode", "1"},
		// Text>>addAttribute:from:to: (Text class>>addAttribute:toArray:: an attribute in place of those it dominates), TextEmphasis>>dominates:, Text>>emphasisAt:
		{"addAttribute:from:to: over part of a Text", "| t | t := 'hello' asText. t addAttribute: TextEmphasis bold from: 2 to: 3. t addAttribute: TextEmphasis italic from: 3 to: 4. { t runs runs. (t attributesAt: 3) size. t emphasisAt: 3. t emphasisAt: 1 }", "#(#(1 1 1 1 1) 2 3 0)"},
		{"an emphasis added twice is there once", "| t | t := 'hello' asText. t addAttribute: TextEmphasis bold. t addAttribute: TextEmphasis bold. (t attributesAt: 1) size", "1"},
		{"TextEmphasis normal clears the emphases", "| t | t := 'hello' asText. t addAttribute: TextEmphasis italic. t addAttribute: TextEmphasis normal. (t attributesAt: 1) size", "0"},
		{"a TextColor replaces the color there", "| t | t := 'hello' asText. t addAttribute: TextColor red from: 1 to: 2. t addAttribute: TextColor blue from: 1 to: 2. (t attributesAt: 1) first color = Color blue", "true"},
		{"removeAttribute:from:to: splits the run", "| t | t := 'hello' asText. t addAttribute: TextEmphasis bold. t removeAttribute: TextEmphasis bold from: 1 to: 2. t runs runs", "#(2 3)"},
		// Text>>runs: refuses runs of another size; TextEmphasis>>printOn:
		{"runs: of the wrong size", "[ 'abc' asText runs: (RunArray new: 2 withAll: #()) ] on: Error do: [ :e | e messageText ]", "'Some code is setting text attributes length not matching the string size'"},
		{"a TextEmphasis prints its code", "TextEmphasis bold printString", "'a TextEmphasis code: 1'"},
		// Text>>copyFrom:to: (clipped to the text), postCopy (the string copied), reversed, isText
		{"copyFrom:to: past the ends is clipped", "('abc' asText copyFrom: 0 to: 5) printString", "'a Text for ''abc'''"},
		{"a copy's string is its own", "| t c | t := 'hello' asText. c := t copy. c at: 1 put: $j. { t string. c string }", "#('hello' 'jello')"},
		{"a Text reversed, and isText", "{ 'abc' asText reversed string. 'abc' asText isText. 'abc' isText }", "#('cba' true false)"},
		// Text>>find: (the first interval of an attribute), Text>>rangeOf:startingAt: (RunArray>>rangeOf:startingAt:), TextStream>>nextPutAll: (a text keeps its attributes):
		// TextTest>>#testAdjacentRunsWithIdentitcalAttributes, #testTextEmphasisRangeDetection1; Text>>displayStringOn: (printOn:, TextTest>>#testGtDisplayOn)
		{"a TextStream keeps a text's attributes", "| ts t r | ts := TextStream on: (Text new: 50). ts nextPutAll: 'abc' asText. ts nextPutAll: 'def' asText allBold. ts nextPutAll: 'ghijk'. t := ts contents. r := t find: TextEmphasis bold. { t string. r. t runs runs. (t removeAttribute: TextEmphasis bold from: r first to: r last; yourself) runs runs }", "{'abcdefghijk'. (4 to: 6). #(3 3 5). #(11)}"},
		{"the range of an attribute around an index", "| t | t := 'hello world' asText. t addAttribute: TextEmphasis bold from: 3 to: 5. { t rangeOf: TextEmphasis bold startingAt: 4. (t rangeOf: TextEmphasis bold startingAt: 7) isEmpty. (t rangeOf: TextEmphasis bold startingAt: 7) first }", "{(3 to: 5). true. 7}"},
		{"withAttribute:do: gives what the block writes the attribute", "| ts t | ts := TextStream on: (Text new: 10). ts nextPutAll: 'a'. ts withAttribute: TextEmphasis italic do: [ ts nextPutAll: 'bc' ]. t := ts contents. { t emphasisAt: 1. t emphasisAt: 2. t emphasisAt: 3 }", "#(0 2 2)"},
		{"a Text displays as it prints", "'Hello Pharo' asText displayString", "'a Text for ''Hello Pharo'''"},
		// Symbol class>>hasInterned:ifTrue: and findInterned: (the symbol table: a symbol made before is found, a name never made as a symbol is not)
		{"a selector is an interned symbol", "{ Symbol hasInterned: 'printString'. Symbol hasInterned: 'Object'. Symbol hasInterned: 'printString' ifTrue: [ :s | s ] }", "#(true true true)"},
		{"a name never made a symbol is not interned", "{ Symbol hasInterned: 'notASymbol0' ifTrue: [ :s | s ]. Symbol findInterned: 'notASymbol0' }", "#(false nil)"},
		{"a symbol made from a string is interned", "| s | s := ('notA' , 'Symbol1') asSymbol. Symbol hasInterned: 'notASymbol1' ifTrue: [ :found | found == s ]", "true"},
		// FileSystem class>>memory, FileReference>>ensureCreateDirectory, ensureCreateFile, writeStreamDo:, contents,
		// exists, children; FileReference>>printOn: (MemoryStore>>forReferencePrintOn: 'memory://', FileSystemStore>>printPath:on:)
		{"a memory file system's files", "| root dir1 file1 | root := FileSystem memory root. dir1 := (root / 'dir1') ensureCreateDirectory. file1 := (dir1 / 'file1') ensureCreateFile. file1 writeStreamDo: [ :out | out nextPutAll: 'ABC' ]. { dir1 printString. file1 printString. file1 contents. dir1 exists. file1 exists. dir1 children size. file1 isFile. dir1 isDirectory. (root / 'x') exists }", "#('memory:///dir1' 'memory:///dir1/file1' 'ABC' true true 1 true true false)"},
		{"a memory file system is one", "| fs | fs := FileSystem memory. { fs isMemoryFileSystem. (fs / 'a') fileSystem == fs. FileSystem memory = fs. fs = fs }", "#(true true false true)"},
		{"a memory file deleted", "| f | f := FileSystem memory / 'a.txt'. f writeStreamDo: [ :out | out nextPutAll: 'x' ]. f delete. f exists", "false"},
		{"a memory file read through a stream", "| f | f := FileSystem memory / 'a.txt'. f writeStreamDo: [ :out | out nextPutAll: 'hello' ]. f readStreamDo: [ :in | in next: 4 ]", "'hell'"},
		{"writing over a file from its start keeps what lies past", "| f | f := FileSystem memory / 'a.txt'. f writeStreamDo: [ :out | out nextPutAll: 'hello' ]. f writeStreamDo: [ :out | out nextPutAll: 'J' ]. f contents", "'Jello'"},
		// FileSystemError>>initializeWithReference: (messageText is the reference printed)
		{"a missing file's contents", "| fs | fs := FileSystem memory. [ (fs / 'a' / 'b') contents ] on: FileSystemError do: [ :e | e messageText ]", "'memory:///a/b'"},
		{"a directory made twice", "| fs | fs := FileSystem memory. (fs / 'a') createDirectory. [ (fs / 'a') createDirectory ] on: DirectoryExists do: [ :e | e messageText ]", "'memory:///a'"},
		// String>>asFileReference (FileSystem disk referenceTo:), DiskStore>>forReferencePrintOn: 'File @ ', Path class>>from:delimiter:
		{"a disk file reference is a path", "{ 'foo.txt' asFileReference printString. '/tmp/foo.txt' asFileReference printString. '/tmp/' asFileReference printString. 'foo.txt' asFileReference basename. '/tmp/foo.txt' asFileReference parent printString }", "#('File @ foo.txt' 'File @ /tmp/foo.txt' 'File @ /tmp' 'foo.txt' 'File @ /tmp')"},
		{"disk file references are equal by path", "{ 'foo.txt' asFileReference = 'foo.txt' asFileReference. '/tmp' asFileReference = '/tmp/' asFileReference. FileSystem disk == FileSystem disk }", "#(true true true)"},
		// AbsolutePath>>printOn:, RelativePath>>printOn:, Path>>pathString, isWorkingDirectory
		{"paths print as Pharo's", "{ (Path from: '/tmp/foo.txt') printString. (Path from: 'foo/bar') printString. Path root printString. Path workingDirectory printString. (Path from: '/tmp/foo.txt') pathString. (Path from: './readme.txt') pathString }", "#('Path / ''tmp'' / ''foo.txt''' 'Path * ''foo'' / ''bar''' 'Path root' 'Path workingDirectory' '/tmp/foo.txt' 'readme.txt')"},
		// Path>>parent (PathTest>>#testParentParent, #testWorkingDirectoryParent, #testRootParent), Path>>relativeTo: and
		// relativeToPath: (its comment), Path>>extension, basenameWithoutExtension, extensions (their comments), withParents (PathTest>>#testRelativeWithParents)
		{"a path's parent", "{ (Path * '..') parent segments. Path workingDirectory parent segments. Path root parent isRoot. (Path from: '/a/b') parent printString }", "#(#('..' '..') #('..') true 'Path / ''a''')"},
		{"a path relative to another", "((Path / 'griffle' / 'plonk' / 'nurp') relativeTo: (Path / 'griffle')) printString", "'Path * ''plonk'' / ''nurp'''"},
		{"a path's extensions", "{ (Path from: '/foo/gloops.taz') extension. (Path from: '/foo/gloops.taz') basenameWithoutExtension. (Path from: '/foo/bar.tar.gz') extensions. ((Path from: '/foo/gloops.taz') withExtension: 'txt') basename }", "#('taz' 'gloops' #('tar' 'gz') 'gloops.txt')"},
		{"a path's parents", "| p all | p := Path * 'plonk' / 'griffle' / 'nurb'. all := p withParents. { all size. all first basename. all last == p. (all second isChildOf: all first) }", "#(3 'plonk' true true)"},
		// AbstractFileReference>>ensureDelete (FileReferenceTest>>#testEnsureDeleteNonEmptyDirectory), copyTo: and moveTo: (MemoryFileSystemTest)
		{"ensureDelete leaves a directory that is not empty", "| fs d | fs := FileSystem memory. d := (fs / 'plonk') ensureCreateDirectory. (d / 'child') ensureCreateFile. [ d ensureDelete. #deleted ] on: DirectoryIsNotEmpty do: [ :e | #notEmpty ]", "#notEmpty"},
		{"a file copied and moved", "| fs a b | fs := FileSystem memory. a := fs / 'a.txt'. a writeStreamDo: [ :out | out nextPutAll: 'x' ]. b := a copyTo: fs / 'b.txt'. a moveTo: fs / 'c.txt'. { b contents. a basename. (fs / 'a.txt') exists. (fs / 'c.txt') contents. [ a copyTo: b ] on: FileExists do: [ :e | #exists ] }", "#('x' 'c.txt' false 'x' #exists)"},
		// the disk itself is what pharo-sim's kernel lacks
		{"the disk is lacking", "'till' asFileReference ensureDelete", "ERROR: pharo-sim's kernel lacks the disk (files)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, evalIn(t, c.expr), c.name)
	}
}
