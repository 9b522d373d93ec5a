package packaging_test

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/internal/version"
)

// composeService is what the tests read of a service of compose.yaml.
type composeService struct {
	Image       string            `yaml:"image"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Ports       []string          `yaml:"ports"`
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	Healthcheck struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
}

type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

func readCompose(t *testing.T) composeFile {
	t.Helper()
	root, err := testenv.Root()
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, "compose.yaml"))
	require.NoError(t, err)
	var c composeFile
	require.NoError(t, yaml.Unmarshal(data, &c), "compose.yaml is YAML (merge keys included)")
	for name, s := range c.Services {
		for k, v := range s.Environment {
			s.Environment[k] = interpolate(t, v, composeVariables)
		}
		c.Services[name] = s
	}
	return c
}

// composeVariables are what a user exports before `compose up`.
var composeVariables = map[string]string{
	"REFACTORD_API_KEYS": "compose-test-key-0123456789",
	"POSTGRES_PASSWORD":  "compose-test-password",
}

var reference = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([?-])([^}]*))?\}`)

// interpolate replaces ${VAR}, ${VAR:-default} and ${VAR:?message} as
// compose does; a required variable missing from vars fails the test.
func interpolate(t *testing.T, s string, vars map[string]string) string {
	t.Helper()
	return reference.ReplaceAllStringFunc(s, func(ref string) string {
		m := reference.FindStringSubmatch(ref)
		if v, ok := vars[m[1]]; ok && v != "" {
			return v
		}
		if m[2] == "?" {
			t.Errorf("compose.yaml needs %s: %s", m[1], m[3])
		}
		return m[3] // the default, or nothing
	})
}

// workers are the services of compose.yaml that run this version's image.
func (c composeFile) workers() map[string]composeService {
	out := map[string]composeService{}
	for name, s := range c.Services {
		if s.Image == "localhost/refactord:"+version.Version {
			out[name] = s
		}
	}
	return out
}

// serviceVariables are the variables the service reads: each is a quoted
// name in the configuration package's source.
func serviceVariables(t *testing.T) string {
	t.Helper()
	root, err := testenv.Root()
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(root, "config", "*.go"))
	require.NoError(t, err)
	var all strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		all.Write(data)
	}
	return all.String()
}

// TestComposeFileDescribesAPool: compose.yaml runs PostgreSQL with a health
// check and several workers of this version's image, each with its own
// WORKER_ID and its own data volume (its own image copy), all on the same
// database, started once PostgreSQL is healthy, each health-checked on
// /ready; every variable they set is one the service reads.
func TestComposeFileDescribesAPool(t *testing.T) {
	c := readCompose(t)
	pg, ok := c.Services["postgres"]
	require.True(t, ok, "a postgres service")
	assert.NotEmpty(t, pg.Healthcheck.Test, "postgres has a health check")

	workers := c.workers()
	require.GreaterOrEqual(t, len(workers), 2, "several workers of localhost/refactord:%s", version.Version)
	variables := serviceVariables(t)
	ids, volumes, ports := map[string]string{}, map[string]string{}, map[string]string{}
	var databases []string
	for name, w := range workers {
		t.Run(name, func(t *testing.T) {
			id := w.Environment["WORKER_ID"]
			require.NotEmpty(t, id, "WORKER_ID")
			assert.NotContains(t, ids, id, "WORKER_ID %s is %s's too", id, ids[id])
			ids[id] = name

			db, err := url.Parse(w.Environment["DATABASE_URL"])
			require.NoError(t, err)
			assert.Equal(t, "postgres", db.Scheme)
			assert.Equal(t, "postgres", db.Hostname(), "the database is the postgres service")
			databases = append(databases, w.Environment["DATABASE_URL"])
			assert.Equal(t, "service_healthy", w.DependsOn["postgres"].Condition)
			assert.NotEmpty(t, w.Environment["API_KEYS"], "a pool published on a port needs keys")

			var data string
			for _, v := range w.Volumes {
				if src, dst, _ := strings.Cut(v, ":"); strings.TrimSuffix(dst, ":rw") == "/data" {
					data = src
				}
			}
			require.NotEmpty(t, data, "a volume at /data")
			assert.Contains(t, c.Volumes, data, "a named volume, filled from the image's sample image on first use")
			assert.NotContains(t, volumes, data, "volume %s is %s's too", data, volumes[data])
			volumes[data] = name
			for _, p := range w.Ports {
				assert.NotContains(t, ports, p)
				ports[p] = name
			}

			assert.Equal(t, []string{"CMD", "/usr/local/bin/refactorctl", "ready"}, w.Healthcheck.Test[:min(3, len(w.Healthcheck.Test))],
				"the health check asks /ready with the refactorctl of the image")
			for k := range w.Environment {
				assert.Contains(t, variables, `"`+k+`"`, "%s is a variable the service reads", k)
			}
		})
	}
	slices.Sort(databases)
	assert.Len(t, slices.Compact(databases), 1, "every worker uses the same database")
}

// TestContainerfileSetsOnlyServiceVariables: the image is configured only
// through variables the service documents and reads.
func TestContainerfileSetsOnlyServiceVariables(t *testing.T) {
	root, err := testenv.Root()
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, "Containerfile"))
	require.NoError(t, err)
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	variables := serviceVariables(t)
	var names []string
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "ENV "); ok {
			for _, m := range regexp.MustCompile(`([A-Z_][A-Z0-9_]*)=`).FindAllStringSubmatch(rest, -1) {
				names = append(names, m[1])
			}
		}
	}
	require.NotEmpty(t, names, "the Containerfile sets the service's defaults for the image")
	for _, n := range names {
		assert.Contains(t, variables, `"`+n+`"`, "%s is a variable the service reads", n)
	}
}
