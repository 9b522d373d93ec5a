package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
	"github.com/pharo-refactor/refactord/agents/gemini"
	"github.com/pharo-refactor/refactord/api"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/mcpclient"
	"github.com/pharo-refactor/refactord/pharosim"
	"github.com/pharo-refactor/refactord/pipeline"
	"github.com/pharo-refactor/refactord/store"
)

// bins builds the pharo-sim binary when a test first runs it as a
// subprocess.
var bins testenv.Binaries

func TestMain(m *testing.M) { os.Exit(bins.Run(m)) }

// pharoSim is the pharo-sim binary (built once; skips t under -short).
func pharoSim(t testing.TB) string {
	t.Helper()
	return bins.Path(t, "pharo-sim")
}

type harnessOpts struct {
	maxIterations int
	timeout       time.Duration
	apiKeys       []string
	// simEnv is pharo-sim's environment: its faults and call limit (read
	// in process as the subprocess reads them), or what simCommand needs.
	simEnv  []string
	simArgs []string // replaces serve --dir DIR; implies the subprocess
	// subprocess runs pharo-sim as a process of its own, as refactord
	// does, instead of in the test's process (implied by simArgs,
	// simCommand and a kill fault in simEnv): for tests that kill it or
	// watch it start.
	subprocess   bool
	modelRetries int
	maxBody      int64
	keepAlive    time.Duration
	image        string // a Tonel tree (repo-relative) instead of the sample image
	// simCommand replaces the pharo-sim binary as the MCP command (a
	// launcher wrapping it); "" means pharo-sim itself.
	simCommand     string
	releaseTimeout time.Duration
	// model, when set, serves every role instead of the fake Gemini.
	model        agents.Model
	readBody     time.Duration
	readHeader   time.Duration
	allowOrigins []string
	// publicListener serves as on a listener that is not loopback: no Host
	// check, and no page of the service's own origin is let in.
	publicListener bool
	// checkpoint is called at the release's checkpoints (pipeline.Options).
	checkpoint func(point string)
	// queueUI is mounted as a pool's queue browser.
	queueUI http.Handler
	// log is the logger of the server and of its pipeline, one logger as
	// refactord has (default: none).
	log *zap.Logger
	// dataDir holds the audit database instead of a fresh temporary
	// directory (a file system a test fills).
	dataDir string
	// noEquivalence turns the comparison of the original and the
	// candidate off (EQUIVALENCE=off): for tests of the guards behind it,
	// whose candidates change behaviour on purpose, and of call counts.
	noEquivalence bool
}

// startImage answers the image connection the harness serves: pharosim
// in this process, or pharo-sim as a subprocess when o asks for one.
func startImage(t *testing.T, dir string, o harnessOpts) *mcpclient.Client {
	t.Helper()
	env := map[string]string{}
	for _, kv := range o.simEnv {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	if o.subprocess || o.simArgs != nil || o.simCommand != "" || env[pharosim.EnvKillAt] != "" || env[pharosim.EnvExitAfter] != "" {
		args := o.simArgs
		if args == nil {
			args = []string{"serve", "--dir", dir}
		}
		command := o.simCommand
		if command == "" {
			command = pharoSim(t)
		}
		image, err := mcpclient.New(mcpclient.Config{Command: command, Args: args, Env: o.simEnv, StopGrace: time.Second, BackoffMin: time.Hour,
			ProbeInterval: 30 * time.Second})
		require.NoError(t, err)
		t.Cleanup(func() { _ = image.Close() })
		return image
	}
	getenv := func(k string) string { return env[k] }
	faults, err := pharosim.FaultsFromEnv(getenv)
	require.NoError(t, err)
	callLimit, err := pharosim.CallLimitFromEnv(getenv)
	require.NoError(t, err)
	sim, err := pharosim.New(pharosim.Options{Dir: dir, Faults: faults, CallLimit: callLimit})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sim.Close() })
	image, err := mcpclient.New(mcpclient.Config{InProcess: sim.MCPServer(), BackoffMin: time.Hour, ProbeInterval: 30 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = image.Close() })
	return image
}

type harness struct {
	t      *testing.T
	url    string
	srv    *api.Server
	dir    string // the image's Tonel tree
	image  *mcpclient.Client
	gem    *testenv.FakeGemini
	pipe   *pipeline.Pipeline
	audit  *store.Store
	router routers.Router
	doc    *openapi3.T
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	dir := t.TempDir()
	if o.image == "" {
		o.image = "examples/sample-image"
	}
	require.NoError(t, testenv.CopyTree(o.image, dir))
	image := startImage(t, dir, o)
	// As refactord starts: the server now (a failure is not fatal), and
	// its first probe tells /ready whether the image answers.
	if image.Start(context.Background()) == nil {
		require.Eventually(t, func() bool { h := image.Health(); return h.Answering || h.LastError != "" }, 10*time.Second, 5*time.Millisecond)
	}

	gem := &testenv.FakeGemini{}
	model, err := gemini.New(context.Background(), gemini.Config{
		APIKey: "test-key", BaseURL: testenv.Serve(t, gem), Model: "gemini-test",
		Retry: agents.RetryPolicy{MaxRetries: o.modelRetries, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
	})
	require.NoError(t, err)
	var roleModel agents.Model = model
	if o.model != nil {
		roleModel = o.model
	}
	roles, err := agents.New(agents.Config{Reviewer: roleModel, Writer: roleModel, Validator: roleModel, Refiner: roleModel, Tools: image, MaxToolRounds: 2})
	require.NoError(t, err)
	if o.maxIterations == 0 {
		o.maxIterations = 3
	}
	if o.dataDir == "" {
		o.dataDir = t.TempDir()
	}
	audit, err := store.Open(context.Background(), filepath.Join(o.dataDir, "refactord.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = audit.Close() })
	pipe := pipeline.New(image, roles, audit, pipeline.Options{MaxIterations: o.maxIterations, Timeout: o.timeout, ReleaseTimeout: o.releaseTimeout,
		Checkpoint: o.checkpoint, NoEquivalence: o.noEquivalence}, orNop(o.log))
	srv := api.New(api.Options{
		AppName: "refactord", Version: "test", APIKeys: o.apiKeys, MaxBodyBytes: o.maxBody, OpenAPI: refactor.OpenAPI, KeepAlive: o.keepAlive,
		ReadBodyTimeout: o.readBody, ReadHeaderTimeout: o.readHeader, AllowOrigins: o.allowOrigins, LoopbackHosts: !o.publicListener,
		QueueUI: o.queueUI,
	}, pipe, image, audit, prometheus.NewRegistry(), orNop(o.log))
	// The server as refactord runs it: its http.Server and listener.
	hs := httptest.NewUnstartedServer(nil)
	hs.Config = srv.HTTPServer()
	hs.Listener = srv.Listener(hs.Listener)
	hs.Start()
	t.Cleanup(hs.Close)

	doc, err := openapi3.NewLoader().LoadFromData(refactor.OpenAPI)
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()), "openapi.yaml must be a valid document")
	doc.Servers = openapi3.Servers{{URL: hs.URL}}
	router, err := gorillamux.NewRouter(doc)
	require.NoError(t, err)
	return &harness{t: t, url: hs.URL, srv: srv, dir: dir, image: image, gem: gem, pipe: pipe, audit: audit, router: router, doc: doc}
}

// do sends a request (a JSON body when there is one) and validates the
// response against openapi.yaml.
func (h *harness) do(method, path string, body string, header map[string]string) (*http.Response, []byte) {
	h.t.Helper()
	req := h.request(method, path, body, nil)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return h.send(req)
}

// request builds a request with exactly these headers.
func (h *harness) request(method, path, body string, header map[string]string) *http.Request {
	h.t.Helper()
	req, err := http.NewRequest(method, h.url+path, strings.NewReader(body))
	require.NoError(h.t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return req
}

// send sends req exactly as built (no default headers) and validates the
// response against openapi.yaml.
func (h *harness) send(req *http.Request) (*http.Response, []byte) {
	h.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	h.validate(req, resp, data)
	return resp, data
}

func (h *harness) validate(req *http.Request, resp *http.Response, body []byte) {
	h.t.Helper()
	route, params, err := h.router.FindRoute(req)
	require.NoError(h.t, err, "every route the tests call is in openapi.yaml")
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	in.SetBodyBytes(body)
	assert.NoError(h.t, openapi3filter.ValidateResponse(context.Background(), in), "response %d %s does not match openapi.yaml: %s", resp.StatusCode, req.URL.Path, body)
}

func (h *harness) refactor(body string) (*http.Response, map[string]any) {
	h.t.Helper()
	resp, data := h.do(http.MethodPost, "/api/v1/refactor", body, nil)
	var out map[string]any
	require.NoError(h.t, json.Unmarshal(data, &out), "%s", data)
	h.checkAuditRow(resp.StatusCode, out)
	return resp, out
}

// answered is the status a run's JSON answer stands for: its HTTP status,
// or, for a run that failed after its 200 headers went out (it had reached
// its first model call), the status its body names. Such a body is the
// original's failure shape with the problem's fields.
func answered(t *testing.T, resp *http.Response, out map[string]any) int {
	t.Helper()
	if resp.StatusCode == http.StatusOK && out["success"] == false {
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "the headers went out before the failure")
		assert.Nil(t, out["result"])
		assert.Equal(t, out["detail"], out["error"], "the original's clients read error")
		assert.Equal(t, out["status"], out["status_code"])
	}
	return testenv.AnsweredStatus(resp, out)
}

// checkAuditRow holds the audit row of a run to its HTTP response.
func (h *harness) checkAuditRow(status int, out map[string]any) {
	h.t.Helper()
	id, _ := out["id"].(string)
	if id == "" {
		return // refused before a run started: no row
	}
	if status == http.StatusOK && out["success"] == false {
		status = int(out["status"].(float64)) // a failure after the headers went out
	}
	resp, data := h.do(http.MethodGet, "/api/v1/refactorings/"+id, "", nil)
	require.Equal(h.t, http.StatusOK, resp.StatusCode, "%s", data)
	var row map[string]any
	require.NoError(h.t, json.Unmarshal(data, &row))
	if status == http.StatusOK {
		assert.Equal(h.t, out["outcome"], row["status"], "audit status")
		assert.Equal(h.t, out["original_code"], row["original_source"])
		assert.Equal(h.t, out["protocol"], row["original_protocol"])
		assert.Equal(h.t, out["iterations"], row["iterations"])
		assert.Equal(h.t, "", row["error_code"])
		if out["outcome"] == "released" {
			assert.NotNil(h.t, row["released_at"])
		}
	} else {
		assert.Equal(h.t, out["code"], row["error_code"], "audit error code")
		assert.Contains(h.t, []any{"failed", "rolled_back", "restore_failed"}, row["status"])
		assert.Equal(h.t, out["run_status"], row["status"], "the answer says what the audit row says")
	}
	if rc, ok := out["refactored_code"]; ok {
		assert.Equal(h.t, rc, row["final_source"])
	}
	if helpers, ok := out["helpers"].([]any); ok && len(helpers) > 0 {
		assert.Equal(h.t, helpers, row["helpers"], "the audit row holds the helpers the answer names")
	}
	if u, ok := out["usage"].(map[string]any); ok {
		assert.Equal(h.t, u["model_calls"], row["model_calls"])
		assert.Equal(h.t, u["input_tokens"], row["input_tokens"])
	}
	assert.Equal(h.t, out["class_name"] != nil && out["class_name"] != row["class_name"], false)
}

func (h *harness) classFile(name string) []byte {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.dir, "src", "Sample-Shop", name+".class.st"))
	require.NoError(h.t, err)
	return data
}

func readRepoFile(t *testing.T, rel string) []byte {
	t.Helper()
	root, err := testenv.Root()
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, rel))
	require.NoError(t, err)
	return data
}

func orNop(log *zap.Logger) *zap.Logger {
	if log == nil {
		return zap.NewNop()
	}
	return log
}
