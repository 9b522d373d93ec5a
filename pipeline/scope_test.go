package pipeline

import (
	refactor "github.com/pharo-refactor/refactord"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A class whose variables are slot definitions (Famix, Pharo 9+) declares
// the names before the arrows, not the whole entries.
func TestScopeDeclaresSlotVariablesByName(t *testing.T) {
	t.Parallel()
	src := "Class {\n\t#name : 'Node',\n\t#superclass : 'Object',\n" +
		"\t#instVars : [ '#owner => FMOne type: #Node opposite: #children', 'plain' ],\n" +
		"\t#classVars : [ 'Registry' ],\n\t#category : 'Pkg',\n\t#package : 'Pkg'\n}\n"
	s, err := newScope(refactor.MethodRef{Class: "Node", Selector: "owner"}, src, "owner\n\t^ owner")
	require.NoError(t, err)
	for _, name := range []string{"owner", "plain", "Registry"} {
		assert.True(t, s.declared(name), name)
	}
	assert.False(t, s.declared("#owner => FMOne type: #Node opposite: #children"))
}
