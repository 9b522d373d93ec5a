package refactor_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/pharo-refactor/refactord"

// TestDependenciesPointDown holds the code map of docs/architecture.md to the
// imports: the domain at the bottom imports only smalltalk, the leaf that
// knows the language's name shapes; the
// pipeline and the api work on the domain, never on the adapters; the
// adapters never import each other; the client binary stays free of the
// service's packages. Only cmd/refactord wires the concrete types together.
func TestDependenciesPointDown(t *testing.T) {
	imports := moduleImports(t)
	require.Contains(t, imports, module, "go list sees the domain package")
	rules := []struct {
		pkg       string
		forbidden []string // module packages (and their subpackages) it must not import
		only      []string // when set, the only module packages it may import
	}{
		{pkg: module, only: []string{module + "/smalltalk"}}, // the Smalltalk name shapes
		{pkg: module + "/smalltalk", only: []string{}},
		{pkg: module + "/wire", only: []string{module}},
		{pkg: module + "/pipeline", forbidden: []string{"api", "agents", "mcpclient", "store", "wire", "pharosim", "config"}},
		{pkg: module + "/api", forbidden: []string{"pipeline", "agents", "mcpclient", "store", "pharosim", "config"}},
		{pkg: module + "/agents", forbidden: []string{"pipeline", "api", "mcpclient", "store", "wire", "pharosim"}},
		{pkg: module + "/mcpclient", forbidden: []string{"pipeline", "api", "agents", "store", "wire"}},
		{pkg: module + "/store", forbidden: []string{"pipeline", "api", "agents", "mcpclient", "wire", "smalltalk", "pharosim"}},
		{pkg: module + "/pool", forbidden: []string{"pipeline", "api", "agents", "mcpclient", "wire", "pharosim", "config"}},
		{pkg: module + "/cmd/refactorctl", forbidden: []string{"pipeline", "api", "agents", "mcpclient", "store", "pharosim", "config"}},
	}
	for _, rule := range rules {
		t.Run(rule.pkg, func(t *testing.T) {
			got, ok := imports[rule.pkg]
			require.True(t, ok, "go list knows %s", rule.pkg)
			if rule.only != nil {
				assert.ElementsMatch(t, rule.only, got, "%s imports only %v of the module", rule.pkg, rule.only)
			}
			for _, imp := range got {
				for _, f := range rule.forbidden {
					forbidden := module + "/" + f
					assert.False(t, imp == forbidden || strings.HasPrefix(imp, forbidden+"/"), "%s must not import %s", rule.pkg, imp)
				}
			}
		})
	}
}

// moduleImports maps each package of the module to the module packages
// its non-test files import.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...").Output()
	require.NoError(t, err)
	imports := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		require.NoError(t, dec.Decode(&p))
		own := []string{}
		for _, imp := range p.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				own = append(own, imp)
			}
		}
		imports[p.ImportPath] = own
	}
	return imports
}
