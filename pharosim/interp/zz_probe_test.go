package interp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pharo-refactor/refactord/pharosim/classlib"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
	"github.com/stretchr/testify/require"
)

func TestZZProbe(t *testing.T) {
	expr := os.Getenv("ZZ_EXPR")
	if expr == "" {
		t.Skip()
	}
	var files []*tonel.File
	for _, dir := range strings.Split(os.Getenv("ZZ_DIRS"), ":") {
		if dir == "" {
			continue
		}
		paths, _ := filepath.Glob(filepath.Join(dir, "*.st"))
		for _, p := range paths {
			if filepath.Base(p) == "package.st" {
				continue
			}
			f, err := tonel.ReadFile(p)
			require.NoError(t, err, p)
			files = append(files, f)
		}
	}
	p := ReadProgram(files)
	p.PharoDeclares = classlib.Default().Declares
	p.Methods = append(p.Methods, MethodSource{Class: "UndefinedObject", Source: "zzDoIt\n\t^ [ " + expr + " ] value printString"})
	in, err := New(p, Limits{Steps: StepGuard})
	require.NoError(t, err)
	var out string
	in.guard(StepGuard, func() { out = str(in.Send(nil, "zzDoIt")) }, func(d string) { out = "ERROR: " + d })
	fmt.Println(out)
}
