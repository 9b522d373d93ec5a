package interp

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// TestTheKernelDefinesEachMethodOnce: two definitions of one method in the
// kernel's files (a class's own file and an extension, say) would let the
// order the files load in choose between them, silently.
func TestTheKernelDefinesEachMethodOnce(t *testing.T) {
	t.Parallel()
	k, err := kernel()
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, m := range k.Methods {
		ast, err := smalltalk.ParseMethod(m.Source)
		require.NoError(t, err, "%s: %s", m.Class, m.Source)
		key := m.Class + ">>#" + ast.Selector
		if m.ClassSide {
			key = m.Class + " class>>#" + ast.Selector
		}
		assert.False(t, seen[key], "%s is defined twice", key)
		seen[key] = true
	}
	assert.Greater(t, len(seen), 1000, "the kernel's methods were read")
}

// strayMethods answers the methods a class's file (or a class's
// extension file) defines for another class: they belong in that class's
// extension file (Foo.extension.st).
func strayMethods(f *tonel.File) []string {
	var out []string
	for _, m := range f.Methods {
		owner := strings.TrimSuffix(strings.TrimSuffix(m.Class, " classSide"), " class")
		if owner != "" && owner != f.Def.Name {
			out = append(out, m.Class+">>"+strings.SplitN(m.Source, "[", 2)[0])
		}
	}
	return out
}

// TestAClassFileHoldsOnlyItsClassMethods: a method of Number in
// Duration.class.st (or in Integer.extension.st) is found by no one
// looking for Number's methods: Number.class.st and Number.extension.st.
func TestAClassFileHoldsOnlyItsClassMethods(t *testing.T) {
	t.Parallel()
	for name, source := range map[string]string{
		"Duration.class.st": "Class {\n\t#name : #Duration,\n\t#superclass : #Object\n}\n\n" +
			"Duration >> seconds [ ^ 1 ]\nNumber >> seconds [ ^ Duration seconds: self ]\n",
		"Integer.extension.st": "Extension { #name : #Integer }\n\n" +
			"Integer >> asYear [ ^ Year year: self ]\nNumber class >> zero [ ^ 0 ]\n",
	} {
		stray, err := tonel.ParseFile(name, []byte(source))
		require.NoError(t, err)
		require.Len(t, strayMethods(stray), 1, "a stray method in %s is found", name)
	}

	files, err := fs.Glob(kernelFS, "kernel/*.st")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		data, err := kernelFS.ReadFile(path)
		require.NoError(t, err)
		f, err := tonel.ParseFile(path, data)
		require.NoError(t, err)
		assert.Empty(t, strayMethods(f), "%s defines methods of other classes", path)
	}
}
