package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/pharosim/classlib"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// miniPharo writes a small Pharo-shaped src: a kernel whose Integer has +
// but not *, a trait, an extension from another package, and a folder
// without package.st.
func miniPharo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"src/.properties":                 "{ #format : #tonel }",
		"src/Kernel/package.st":           "Package { #name : 'Kernel' }\n",
		"src/Kernel/ProtoObject.class.st": "Class { #name : 'ProtoObject', #superclass : 'nil', #package : 'Kernel' }\n\n{ #category : 'x' }\nProtoObject >> == other [\n\t<primitive: 110>\n\t^ self secretBodyMarker\n]\n",
		"src/Kernel/Object.class.st":      "Class { #name : 'Object', #superclass : 'ProtoObject', #package : 'Kernel' }\n\n{ #category : 'x' }\nObject >> yourself [\n\t^ self\n]\n",
		"src/Kernel/Number.class.st":      "Class { #name : 'Number', #superclass : 'Object', #package : 'Kernel' }\n",
		"src/Kernel/Integer.class.st": "Class {\n\t#name : 'Integer',\n\t#superclass : 'Number',\n\t#traits : 'TMini - {#hidden}',\n\t#classTraits : 'TMini classTrait',\n\t#instVars : [ 'bits' ],\n\t#package : 'Kernel'\n}\n\n" +
			"{ #category : 'x' }\nInteger >> + other [\n\t^ 0\n]\n\n{ #category : 'x' }\nInteger class >> readFrom: aStream [\n\t^ 0\n]\n",
		"src/Kernel/TMini.trait.st":       "Trait { #name : 'TMini', #package : 'Kernel' }\n\n{ #category : 'x' }\nTMini >> shout [\n\t^ 1\n]\n\n{ #category : 'x' }\nTMini classSide >> make [\n\t^ 1\n]\n",
		"src/Extras/package.st":           "Package { #name : 'Extras' }\n",
		"src/Extras/Integer.extension.st": "Extension { #name : 'Integer' }\n\n{ #category : '*Extras' }\nInteger >> isTiny [\n\t^ true\n]\n",
		"src/Loose/Stray.class.st":        "Class { #name : 'Stray', #superclass : 'Object' }\n",
	})
	return root
}

func runIndex(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"index"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestIndexOfAPharoSrc(t *testing.T) {
	root := miniPharo(t)
	file := filepath.Join(t.TempDir(), "mini.idx.gz")
	code, out, errOut := runIndex(t, "-o", file, "--label", "Pharo 99", "--commit", "0123456789abcdef0123456789abcdef01234567", filepath.Join(root, "src"))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "2 packages, 5 classes and traits, 7 methods")
	assert.Contains(t, errOut, filepath.Join(root, "src", "Loose")+": .st files without package.st")

	lib, err := classlib.LoadFile(file)
	require.NoError(t, err)
	assert.Equal(t, classlib.Source{Label: "Pharo 99", Repository: "github.com/pharo-project/pharo", Commit: "0123456789abcdef0123456789abcdef01234567"}, lib.Source())
	integer, ok := lib.Class("Integer")
	require.True(t, ok)
	assert.Equal(t, "Number", integer.Superclass)
	assert.Equal(t, "Kernel", integer.Package)
	assert.Equal(t, classlib.KindClass, integer.Kind)
	assert.Equal(t, []string{"+", "isTiny"}, integer.Selectors(tonel.InstanceSide), "its own and its extensions' selectors")
	assert.Equal(t, []string{"readFrom:"}, integer.Selectors(tonel.ClassSide))
	assert.Equal(t, []string{"TMini"}, integer.Traits(tonel.InstanceSide))
	assert.Equal(t, []string{"TMini"}, integer.Traits(tonel.ClassSide))
	assert.Equal(t, []string{"bits"}, integer.Vars(tonel.InstanceSide))
	assert.True(t, lib.Provides("Integer", tonel.InstanceSide, "shout"), "through its trait")
	assert.True(t, lib.Provides("Integer", tonel.ClassSide, "make"), "through its trait's class side")
	assert.False(t, lib.Provides("Integer", tonel.InstanceSide, "*"))
	trait, ok := lib.Class("TMini")
	require.True(t, ok)
	assert.Equal(t, classlib.KindTrait, trait.Kind)
	proto, ok := lib.Class("ProtoObject")
	require.True(t, ok)
	assert.Empty(t, proto.Superclass, "a root")
	_, ok = lib.Class("Stray")
	assert.False(t, ok, "a folder without package.st is not read")

	text := gunzip(t, file)
	assert.NotContains(t, text, "secretBodyMarker", "no method body is copied")
	assert.NotContains(t, text, "primitive")
}

// Without --commit, the commit of the checkout holding the src is recorded.
func TestIndexRecordsTheCheckoutsCommit(t *testing.T) {
	root := miniPharo(t)
	gitIn(t, root, "init", "-q")
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "-c", "user.name=ci", "-c", "user.email=ci@example.org", "commit", "-q", "-m", "src")
	head := strings.TrimSpace(gitIn(t, root, "rev-parse", "HEAD"))
	file := filepath.Join(t.TempDir(), "mini.idx.gz")
	code, out, errOut := runIndex(t, "-o", file, filepath.Join(root, "src"))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, head)
	lib, err := classlib.LoadFile(file)
	require.NoError(t, err)
	assert.Equal(t, head, lib.Source().Commit)
}

func TestIndexUsage(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"no output", []string{t.TempDir()}, 2, "usage: pharo-sim index"},
		{"no source", []string{"-o", "x.idx.gz"}, 2, "usage: pharo-sim index"},
		{"not a tree", []string{"-o", filepath.Join(t.TempDir(), "x.idx.gz"), filepath.Join(t.TempDir(), "nowhere")}, 2, "pharo-sim index:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runIndex(t, tc.args...)
			assert.Equal(t, tc.code, code)
			assert.Contains(t, errOut, tc.err)
		})
	}
}

// serve --class-library (or its variable) answers from another index: the
// mini Pharo's Integer has no *; the embedded Pharo 13 one has.
func TestServeWithAnotherClassLibrary(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mini.idx.gz")
	code, _, errOut := runIndex(t, "-o", file, filepath.Join(miniPharo(t), "src"))
	require.Equal(t, 0, code, errOut)
	understands := func(t *testing.T, s *sim, class, selector string) bool {
		t.Helper()
		var yes bool
		s.eval(t, "(Smalltalk globals at: #'"+class+"') canUnderstand: #'"+selector+"'").result(t, &yes)
		return yes
	}
	cases := []struct {
		name string
		env  []string
		args []string
		star bool
	}{
		{"the embedded Pharo 13 index", nil, nil, true},
		{"--class-library", nil, []string{"--class-library", file}, false},
		{"PHARO_SIM_CLASS_LIBRARY", []string{envClassLibrary + "=" + file}, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startSim(t, tc.env, append([]string{"--dir", testenv.SimTree(t)}, tc.args...)...)
			assert.Equal(t, tc.star, understands(t, s, "Integer", "*"))
			assert.Equal(t, !tc.star, understands(t, s, "Integer", "isTiny"))
			assert.True(t, understands(t, s, "Integer", "+"))
			var settings struct {
				PharoSim struct {
					ClassLibrary struct {
						Label   string `json:"label"`
						Classes int    `json:"classes"`
					} `json:"class_library"`
				} `json:"pharo_sim"`
			}
			s.call(t, "get_settings", nil).result(t, &settings)
			if tc.star {
				assert.Equal(t, "Pharo 13", settings.PharoSim.ClassLibrary.Label)
			} else {
				assert.Equal(t, 5, settings.PharoSim.ClassLibrary.Classes)
			}
		})
	}
}

// A class-library file that is not an index stops start-up with a line
// naming it.
func TestServeRefusesABrokenClassLibrary(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.idx")
	require.NoError(t, os.WriteFile(bad, []byte("pharo-sim class library 1\nsource\tx\ty\tz\nC\tFoo\n"), 0o644))
	cmd := exec.Command(simBinary(t), "serve", "--dir", testenv.SimTree(t), "--class-library", bad)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 1, exit.ExitCode())
	assert.Contains(t, stderr.String(), bad+": line 3: want 12 tab-separated fields")
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return string(out)
}

func gunzip(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	text, err := io.ReadAll(zr)
	require.NoError(t, err)
	return string(text)
}
