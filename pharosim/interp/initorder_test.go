package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// initLogFixture is where the fixtures' class-side initialize methods note
// that they ran, and what they saw.
const initLogFixture = `Class { #name : #InitLog, #superclass : #Object, #classVars : [ 'Log' ], #category : #Log }
InitLog class >> note: x [ (Log ifNil: [ Log := OrderedCollection new ]) add: x ]
InitLog class >> log [ ^ (Log ifNil: [ #() ]) asArray ]
`

// initFixture is a class of the package folder pkg that notes its name
// when its class side is initialized, after running body.
func initFixture(pkg, name, super, extra, body string) (string, string) {
	return pkg + "/" + name + ".class.st", fmt.Sprintf(
		"Class { #name : #%s, #superclass : #%s, %s #category : #'%s' }\n%s class >> initialize [ %s InitLog note: self name ]\n",
		name, super, extra, pkg, name, body)
}

// TestClassSideInitializeRunsInPharosLoaderOrder: loading runs each class-side
// initialize in the order of Pharo 13's MCPackageLoader: a package's
// definitions sorted by MCDependencySorter (by sort key — a class's name, a
// method's Class.meta.selector — each waiting for its superclass and pools
// of the same package), then each class-side initialize in that order
// (MCMethodDefinition>>postloadOver:); a package after the packages it
// builds on. An initialize that fails is named.
func TestClassSideInitializeRunsInPharosLoaderOrder(t *testing.T) {
	t.Parallel()
	type fixture struct{ pkg, name, super, extra, body string }
	cases := []struct {
		name     string
		fixtures []fixture
		log      string
		failures []string
	}{
		{"unrelated classes by name", []fixture{{"P", "Zeta", "Object", "", ""}, {"P", "Alpha", "Object", "", ""}, {"P", "Mid", "Object", "", ""}},
			"#(#Alpha #Mid #Zeta)", nil},
		{"a subclass named after its superclass runs second", []fixture{{"P", "Base", "Object", "#classVars : [ 'Table' ],", "Table := 3."}, {"P", "BaseUser", "Base", "", "InitLog note: Table."}},
			"#(#Base 3 #BaseUser)", nil},
		{"a subclass named before its superclass runs first, the table not yet set", []fixture{{"P", "Zbase", "Object", "#classVars : [ 'Table' ],", "Table := 3."}, {"P", "Auser", "Zbase", "", "InitLog note: Table."}},
			"#(nil #Auser #Zbase)", nil},
		{"a class waits for a pool of its package", []fixture{{"P", "Zpool", "SharedPool", "#classVars : [ 'K' ],", "K := 1."}, {"P", "Auses", "Object", "#pools : [ 'Zpool' ],", ""}},
			"#(#Auses #Zpool)", nil},
		{"a superclass of another package was initialized when that package loaded", []fixture{{"Z-Base", "Zroot", "Object", "#classVars : [ 'Table' ],", "Table := 4."}, {"A-Ext", "Aleaf", "Zroot", "", "InitLog note: Table."}},
			"#(#Zroot 4 #Aleaf)", nil},
		{"a failing initialize is named, the others run", []fixture{{"P", "Bad", "Object", "", "self zork."}, {"P", "Good", "Object", "", ""}},
			"#(#Good)", []string{"Bad class>>#initialize: ", "zork"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			log, err := tonel.ParseFile("Log/InitLog.class.st", []byte(initLogFixture))
			require.NoError(t, err)
			files := []*tonel.File{log}
			for _, f := range c.fixtures {
				path, src := initFixture(f.pkg, f.name, f.super, f.extra, f.body)
				file, err := tonel.ParseFile(path, []byte(src))
				require.NoError(t, err, src)
				files = append(files, file)
			}
			program := ReadProgram(files)
			assert.Equal(t, c.log, runInProgram(t, program, "InitLog log"))
			in, err := New(program, Limits{Steps: 1_000_000})
			require.NoError(t, err)
			if c.failures == nil {
				assert.Empty(t, in.InitializeFailures())
				return
			}
			require.Len(t, in.InitializeFailures(), 1)
			for _, want := range c.failures {
				assert.Contains(t, in.InitializeFailures()[0], want)
			}
		})
	}
}

// TestPackagesLoadAfterThePackagesTheyBuildOn: the package order when a
// superclass lies in another package, and when packages need each other.
func TestPackagesLoadAfterThePackagesTheyBuildOn(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		defs      map[string][]tonel.Definition
		packageOf map[string]string
		want      string
	}{
		{"by name when independent", map[string][]tonel.Definition{"B": {{Name: "X", Superclass: "Object"}}, "A": {{Name: "Y", Superclass: "Object"}}},
			map[string]string{"X": "B", "Y": "A"}, "A B"},
		{"a package after the one its superclasses come from", map[string][]tonel.Definition{"A": {{Name: "Y", Superclass: "X"}}, "B": {{Name: "X", Superclass: "Object"}}},
			map[string]string{"X": "B", "Y": "A"}, "B A"},
		{"a package after the one its pools come from", map[string][]tonel.Definition{"A": {{Name: "Y", Superclass: "Object", Pools: []string{"P"}}}, "B": {{Name: "P", Superclass: "SharedPool"}}},
			map[string]string{"P": "B", "Y": "A"}, "B A"},
		{"packages that need each other by name", map[string][]tonel.Definition{"B": {{Name: "X", Superclass: "Y"}}, "A": {{Name: "Y", Superclass: "Z"}, {Name: "Z", Superclass: "X"}}},
			map[string]string{"X": "B", "Y": "A", "Z": "A"}, "A B"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, strings.Join(packageLoadOrder(c.defs, nil, c.packageOf), " "), c.name)
	}
}
