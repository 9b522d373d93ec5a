package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

const (
	integerExtensionFile = "src/Sample-Extras/Integer.extension.st"
	newDoubled           = "doubled\n\t\"Answer twice the receiver\"\n\n\t^ self * 2"
)

// withIntegerExtension adds a package extending Integer, a class of
// Pharo's library that the tree does not define.
func withIntegerExtension(t *testing.T, tree string) {
	t.Helper()
	extras := filepath.Join(tree, "src", "Sample-Extras")
	require.NoError(t, os.MkdirAll(extras, 0o755))
	writeFile(t, filepath.Join(extras, "package.st"), "Package { #name : 'Sample-Extras' }\n")
	writeFile(t, filepath.Join(extras, "Integer.extension.st"), "Extension { #name : 'Integer' }\n\n"+
		"{ #category : '*Sample-Extras' }\nInteger >> doubled [\n\n\t^ self + self\n]\n")
}

// A candidate for an Integer extension method that sends `self * 2`
// (Integer's * comes from Pharo's class library) is verified on the image
// and written into the checkout.
func TestVerifyWriteOfAnIntegerExtension(t *testing.T) {
	svc := startService(t, testenv.Script{"Integer>>doubled": testenv.ApprovedInRoundOne(newDoubled)},
		serviceOpts{repeat: true, prepare: withIntegerExtension})
	repo, fresh := checkoutOf(t, withIntegerExtension)
	before := files(t, repo)

	out := ctl(t, svc, "", "refactor", "--write", repo, "Integer>>doubled", "--verify")
	require.Equal(t, exitOK, out.code, out.stderr)
	assert.Contains(t, out.stderr, "wrote "+integerExtensionFile)
	assert.True(t, strings.HasPrefix(out.stdout, "diff --git a/"+integerExtensionFile+" b/"+integerExtensionFile+"\n"), out.stdout)
	assert.Contains(t, out.stdout, "+\t^ self * 2")

	assert.Equal(t, []string{integerExtensionFile}, changedFiles(t, repo))
	written := files(t, repo)[integerExtensionFile]
	onlyTheMethodChanged(t, before[integerExtensionFile], written, tonel.InstanceSide, "doubled", newDoubled)
	assert.Contains(t, written, "{ #category : '*Sample-Extras' }\nInteger >> doubled [")
	appliesToFresh(t, out.stdout, fresh, repo)

	image, err := os.ReadFile(filepath.Join(svc.image, filepath.FromSlash(integerExtensionFile)))
	require.NoError(t, err)
	assert.Contains(t, string(image), "^ self + self", "a verify puts the original back in the image")
}
