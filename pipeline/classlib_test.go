package pipeline_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/scripted"
)

// withKernelClients adds a package to the tree that extends Integer and
// subclasses OrderedCollection: classes of Pharo's library the tree does
// not define.
func withKernelClients(dir string) {
	extras := filepath.Join(dir, "src", "Sample-Extras")
	must(os.MkdirAll(extras, 0o755))
	must(os.WriteFile(filepath.Join(extras, "package.st"), []byte("Package { #name : 'Sample-Extras' }\n"), 0o644))
	must(os.WriteFile(filepath.Join(extras, "Integer.extension.st"), []byte("Extension { #name : 'Integer' }\n\n"+
		"{ #category : '*Sample-Extras' }\nInteger >> doubled [\n\n\t^ self + self\n]\n"), 0o644))
	must(os.WriteFile(filepath.Join(extras, "PriceList.class.st"), []byte("Class {\n\t#name : 'PriceList',\n\t#superclass : 'OrderedCollection',\n\t#package : 'Sample-Extras'\n}\n\n"+
		"{ #category : 'accessing' }\nPriceList >> withTax [\n\n\t| out |\n\tout := OrderedCollection new.\n\tself do: [ :each | out add: each * 6 / 5 ].\n\t^ out\n]\n"), 0o644))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// A candidate's new sends to self that only Pharo's class library
// implements resolve, so the candidate is released; a send nothing
// implements is still refused.
func TestSendsToTheClassLibraryAreReleased(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		ref       refactor.MethodRef
		candidate string
		file      string
	}{
		{"self * 2 in an Integer extension", refactor.MethodRef{Class: "Integer", Selector: "doubled"},
			"doubled\n\n\t^ self * 2", "Integer.extension.st"},
		{"self collect: in a subclass of OrderedCollection", refactor.MethodRef{Class: "PriceList", Selector: "withTax"},
			// collect: answers a PriceList (its species), where withTax
			// answers a plain OrderedCollection: asOrderedCollection keeps
			// the behaviour (the comparison would refuse it otherwise).
			"withTax\n\n\t^ (self collect: [ :each | each * 6 / 5 ]) asOrderedCollection", "PriceList.class.st"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{prepare: withKernelClients, script: script(tc.candidate, []scripted.Answer{approvedAnswer()})})
			res, err := r.run(tc.ref)
			require.NoError(t, err)
			assert.Equal(t, refactor.OutcomeReleased, res.Outcome)
			assert.Equal(t, refactor.StatusReleased, r.row(res.ID).Status)
			assert.True(t, refactor.SameSource(tc.candidate, r.source(tc.ref)), "the image holds the candidate")
			data, err := os.ReadFile(filepath.Join(r.dir, "src", "Sample-Extras", tc.file))
			require.NoError(t, err)
			assert.Contains(t, string(data), tc.candidate[len(tc.ref.Selector):])
			assert.Equal(t, 3, r.model.count(refactor.RoleReviewer)+r.model.count(refactor.RoleWriter)+r.model.count(refactor.RoleValidator))
		})
	}

	t.Run("a send nothing implements is refused", func(t *testing.T) {
		ref := refactor.MethodRef{Class: "Integer", Selector: "doubled"}
		r := newRig(t, rigOpts{prepare: withKernelClients,
			script: script("doubled\n\n\t^ self timesTwoPlease", []scripted.Answer{approvedAnswer()}, "doubled\n\n\t^ self * 2")})
		res, err := r.run(ref, func(q *refactor.Request) { q.DryRun = true })
		require.NoError(t, err)
		assert.Equal(t, refactor.OutcomeProposed, res.Outcome)
		require.Len(t, res.Rounds, 2)
		require.NotEmpty(t, res.Rounds[0].CheckErrors)
		assert.Equal(t, "unresolved_send", res.Rounds[0].CheckErrors[0].Check)
		assert.Equal(t, "timesTwoPlease", res.Rounds[0].CheckErrors[0].Name)
		assert.Empty(t, res.Rounds[1].CheckErrors, "self * 2 resolves")
		assert.Equal(t, 1, r.model.count(refactor.RoleValidator), "only the corrected candidate reached the validator")
	})
}
