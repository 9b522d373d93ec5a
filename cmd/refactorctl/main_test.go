package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// built builds refactord, pharo-sim and refactorctl when a test first
// runs them.
var built binaries

type binaries struct{ testenv.Binaries }

func (b *binaries) refactord(t testing.TB) string   { t.Helper(); return b.Path(t, "refactord") }
func (b *binaries) pharoSim(t testing.TB) string    { t.Helper(); return b.Path(t, "pharo-sim") }
func (b *binaries) refactorctl(t testing.TB) string { t.Helper(); return b.Path(t, "refactorctl") }

func TestMain(m *testing.M) { os.Exit(built.Run(m)) }

// Valid refactorings of the sample image's methods: they parse, keep the
// selector, declare every name and keep the methods' tests green.
const (
	newSum       = "sum: aNumber with: anotherNumber\n\t\"Answer the sum of aNumber and anotherNumber\"\n\n\t^ aNumber + anotherNumber"
	newAverage   = "average: aCollection\n\t\"Answer the arithmetic mean of aCollection, or 0 when it is empty\"\n\n\taCollection isEmpty ifTrue: [ ^ 0 ].\n\t^ (aCollection inject: 0 into: [ :sum :each | sum + each ]) / aCollection size"
	newItemCount = "itemCount\n\t\"Answer how many units the cart holds\"\n\n\t^ items inject: 0 into: [ :sum :each | sum + each value ]"
	newPercent   = "percent: x of: y\n\t\"Answer x as a percentage of y, or 0 when y is zero\"\n\n\ty = 0 ifTrue: [ ^ 0 ].\n\t^ x * 100 / y"
)

// service is refactord running as a subprocess on a copy of the sample image.
type service struct {
	*testenv.Service
	image string // the Tonel tree pharo-sim serves
}

type serviceOpts struct {
	repeat bool     // the script's lists start over when used up
	env    []string // extra environment
	// prepare changes the copied image's tree before the service starts.
	prepare func(t *testing.T, tree string)
}

// startService starts refactord answering from script and waits until it
// is ready.
func startService(t *testing.T, script testenv.Script, o serviceOpts) *service {
	t.Helper()
	dir := t.TempDir()
	image := filepath.Join(dir, "image")
	require.NoError(t, testenv.CopyTree("examples/sample-image", image))
	if o.prepare != nil {
		o.prepare(t, image)
	}
	model, err := script.Env(dir, o.repeat)
	require.NoError(t, err)
	env := append(testenv.ServiceEnv(built.pharoSim(t), image, filepath.Join(dir, "data")), model...)
	env = append(append(env, "MODEL_MAX_RETRIES=0", "SHUTDOWN_GRACE=1s", "LOG_LEVEL=warn"), o.env...)
	svc := &service{Service: testenv.LaunchService(t, testenv.ServiceConfig{Binary: built.refactord(t), Dir: dir, Env: env}), image: image}
	require.NoError(t, svc.WaitFor("/ready", 30*time.Second))
	return svc
}

// busy reads /health's busy flag.
func (s *service) busy(t *testing.T) bool {
	t.Helper()
	h, err := s.Health()
	require.NoError(t, err)
	return h.Busy
}

// classFile is a class's Tonel file as pharo-sim keeps it.
func (s *service) classFile(t *testing.T, class string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(s.image, "src", "Sample-Shop", class+".class.st"))
	require.NoError(t, err)
	return string(data)
}

// post sends a JSON request without the stream.
func (s *service) post(t *testing.T, path, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, data
}

// outcome is one in-process invocation's result.
type outcome struct {
	code   int
	stdout string
	stderr string
}

// ctl runs refactorctl in-process against svc (REFACTORD_URL), with the
// real clock.
func ctl(t *testing.T, svc *service, stdin string, args ...string) outcome {
	t.Helper()
	var stdout, stderr testenv.Buffer
	env := []string{}
	if svc != nil {
		env = append(env, "REFACTORD_URL="+svc.URL)
	}
	code := run(args, env, strings.NewReader(stdin), &stdout, &stderr)
	return outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// ctlWith runs an invocation with changed deps and a context, on the
// caller's goroutine.
func ctlWith(ctx context.Context, svc *service, change func(*deps), stdout, stderr io.Writer, args ...string) int {
	c := newCLI([]string{"REFACTORD_URL=" + svc.URL}, strings.NewReader(""), stdout, stderr)
	if change != nil {
		change(&c.deps)
	}
	return c.main(ctx, args)
}
