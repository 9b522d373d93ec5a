// Package config turns the environment (and an optional .env file) into a
// validated Config. Every variable of docs/operators.md ("Configuration") is here;
// a mistake stops start-up with one line naming the variable.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/go-playground/validator/v10"
)

// Config is the service's whole configuration.
type Config struct {
	// AppName and AppVersion are shown by /health and / (the original's
	// variables); AppVersion "" shows the build's version.
	AppName    string `env:"APP_NAME" validate:"required,max=200"`
	AppVersion string `env:"APP_VERSION" validate:"max=200"`

	ListenAddr           string   `env:"LISTEN_ADDR" validate:"required,hostname_port"`
	APIKeys              []string `env:"API_KEYS"`
	AllowUnauthenticated bool     `env:"ALLOW_UNAUTHENTICATED"`
	MaxBodyBytes         int64    `env:"MAX_BODY_BYTES" validate:"min=1024,max=67108864"`
	// ReadHeaderTimeout and ReadBodyTimeout cut clients that send their
	// request too slowly; neither ever cuts a run.
	ReadHeaderTimeout time.Duration `env:"READ_HEADER_TIMEOUT" validate:"min=100ms,max=10m"`
	ReadBodyTimeout   time.Duration `env:"READ_BODY_TIMEOUT" validate:"min=100ms,max=10m"`
	// CORSAllowOrigins are the web origins allowed to call the API from a
	// browser, normalized as browsers send them (scheme://host[:port]).
	CORSAllowOrigins []string `env:"CORS_ALLOW_ORIGINS"`

	PharoMCPCommand string        `env:"PHARO_MCP_COMMAND" validate:"required"`
	PharoMCPArgs    []string      `env:"PHARO_MCP_ARGS"`
	PharoMCPCwd     string        `env:"PHARO_MCP_CWD"`
	PharoMCPEnv     []string      `env:"PHARO_MCP_ENV" validate:"dive,contains=="`
	PharoMCPTimeout time.Duration `env:"PHARO_MCP_TIMEOUT" validate:"min=1s,max=1h"`

	ModelProvider string `env:"MODEL_PROVIDER" validate:"oneof=gemini openai scripted"`
	// ModelProviderDefaulted: MODEL_PROVIDER was not set, so the scripted
	// demo model was chosen for want of a key. A missing demo file then
	// leaves the service without a model (503 model_not_configured)
	// instead of refusing to start.
	ModelProviderDefaulted bool   `env:"-"`
	GeminiAPIKey           string `env:"GEMINI_API_KEY"`
	GeminiBaseURL          string `env:"GOOGLE_GEMINI_BASE_URL" validate:"omitempty,http_url"`
	ModelID                string `env:"MODEL_ID" validate:"required,max=200"`
	ReviewerModelID        string `env:"REVIEWER_MODEL_ID" validate:"required,max=200"`
	WriterModelID          string `env:"WRITER_MODEL_ID" validate:"required,max=200"`
	ValidatorModelID       string `env:"VALIDATOR_MODEL_ID" validate:"required,max=200"`
	RefinerModelID         string `env:"REFINER_MODEL_ID" validate:"required,max=200"`
	OpenAIBaseURL          string `env:"OPENAI_BASE_URL" validate:"omitempty,http_url"`
	OpenAIAPIKey           string `env:"OPENAI_API_KEY"`
	ScriptedModelFile      string `env:"SCRIPTED_MODEL_FILE"`
	ModelSettings

	ModelTimeout            time.Duration `env:"MODEL_TIMEOUT" validate:"min=1s,max=1h"`
	ModelMaxRetries         int           `env:"MODEL_MAX_RETRIES" validate:"min=0,max=20"`
	MaxValidationIterations int           `env:"MAX_VALIDATION_ITERATIONS" validate:"min=1,max=20"`
	ReviewerMaxToolRounds   int           `env:"REVIEWER_MAX_TOOL_ROUNDS" validate:"min=0,max=10"`
	PipelineTimeout         time.Duration `env:"PIPELINE_TIMEOUT" validate:"min=1s,max=24h"`

	// DatabaseURL (postgres://…) makes the instance a worker of a pool:
	// the audit trail and a durable queue in PostgreSQL, shared by every
	// instance with the same database. Empty: one image, SQLite in
	// DATA_DIR, one slot, 503 busy.
	DatabaseURL string `env:"DATABASE_URL" validate:"omitempty,startswith=postgres"`
	// WorkerID names this worker in rows and results (default: host and
	// port of LISTEN_ADDR's port).
	WorkerID string `env:"WORKER_ID" validate:"max=200"`
	// QueueMax: a POST is refused 503 busy only past this many queued runs.
	QueueMax int `env:"QUEUE_MAX" validate:"min=1,max=100000"`
	// PoolLease: a worker silent this long is taken for dead; its run is
	// run again by another worker when its release had not begun.
	PoolLease     time.Duration `env:"POOL_LEASE" validate:"min=1s,max=1h"`
	ShutdownGrace time.Duration `env:"SHUTDOWN_GRACE" validate:"min=0,max=24h"`

	// The tests around a release: each test class's run may take
	// TestTimeout (the real MCP server cuts every call at 30 s on its own);
	// at most TestMaxClasses classes; TestPackages are packages besides the
	// method's own whose TestCases sending the selector also run.
	TestTimeout    time.Duration `env:"TEST_TIMEOUT" validate:"min=1s,max=1h"`
	TestMaxClasses int           `env:"TEST_MAX_CLASSES" validate:"min=1,max=100"`
	TestPackages   []string      `env:"TEST_PACKAGES" validate:"dive,max=200"`

	// Equivalence compares the original and each candidate side by side
	// where the image offers it (EQUIVALENCE=on|off, default on);
	// EquivalenceMaxInputs bounds the inputs of one comparison.
	Equivalence          bool `env:"EQUIVALENCE"`
	EquivalenceMaxInputs int  `env:"EQUIVALENCE_MAX_INPUTS" validate:"min=1,max=256"`

	DataDir   string `env:"DATA_DIR" validate:"required"`
	LogLevel  string `env:"LOG_LEVEL" validate:"oneof=debug info warn error"`
	LogFormat string `env:"LOG_FORMAT" validate:"oneof=json console"`

	// Warnings are things start-up should log loudly but not refuse.
	Warnings []string `env:"-"`
}

// Getenv looks a variable up; the second result says whether it is set.
type Getenv func(key string) (string, bool)

// Load reads the configuration. dotenv holds the variables of an optional
// .env file (its keys in any case, as the original read them); the real
// environment wins over it. The original service's variable names are
// read too (original.go): each one is named in Warnings, as is every
// variable of .env that means nothing here.
func Load(getenv Getenv, dotenv map[string]string) (Config, error) {
	src := newSources(getenv, dotenv)
	r := reader{lookup: src.lookup}
	cfg := r.read()
	src.applyOriginals(&r, &cfg)
	if err := errors.Join(r.errs...); err != nil {
		return Config{}, err
	}
	cfg.Warnings = append(cfg.Warnings, src.notices()...)
	if err := cfg.validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func (r *reader) read() Config {
	c := Config{
		AppName:          r.str("APP_NAME", "refactord"),
		AppVersion:       r.str("APP_VERSION", ""),
		ListenAddr:       r.str("LISTEN_ADDR", "127.0.0.1:8000"),
		APIKeys:          r.list("API_KEYS"),
		MaxBodyBytes:     int64(r.integer("MAX_BODY_BYTES", 64<<10)),
		CORSAllowOrigins: r.list("CORS_ALLOW_ORIGINS"),
		PharoMCPCommand:  r.str("PHARO_MCP_COMMAND", filepath.Join("bin", "pharo-sim")),
		PharoMCPCwd:      r.str("PHARO_MCP_CWD", ""),
		PharoMCPEnv:      r.list("PHARO_MCP_ENV"),
		PharoMCPTimeout:  r.duration("PHARO_MCP_TIMEOUT", 60*time.Second),
		DataDir:          r.str("DATA_DIR", ".data"),
		LogLevel:         strings.ToLower(r.str("LOG_LEVEL", "info")),
		LogFormat:        strings.ToLower(r.str("LOG_FORMAT", "json")),
	}
	c.AllowUnauthenticated = r.boolean("ALLOW_UNAUTHENTICATED", false)
	c.PharoMCPArgs = r.args("PHARO_MCP_ARGS", []string{"serve", "--dir", filepath.Join(c.DataDir, "image")})
	r.readModel(&c)
	c.ModelTimeout = r.duration("MODEL_TIMEOUT", 120*time.Second)
	c.ModelMaxRetries = r.integer("MODEL_MAX_RETRIES", 4)
	c.MaxValidationIterations = r.integer("MAX_VALIDATION_ITERATIONS", 3)
	c.ReviewerMaxToolRounds = r.integer("REVIEWER_MAX_TOOL_ROUNDS", 2)
	c.PipelineTimeout = r.duration("PIPELINE_TIMEOUT", 20*time.Minute)
	c.ShutdownGrace = r.duration("SHUTDOWN_GRACE", 2*time.Minute)
	c.TestTimeout = r.duration("TEST_TIMEOUT", 60*time.Second)
	c.TestMaxClasses = r.integer("TEST_MAX_CLASSES", 10)
	c.TestPackages = r.list("TEST_PACKAGES")
	c.Equivalence = r.onOff("EQUIVALENCE", true)
	c.EquivalenceMaxInputs = r.integer("EQUIVALENCE_MAX_INPUTS", 64)
	c.ReadHeaderTimeout = r.duration("READ_HEADER_TIMEOUT", 10*time.Second)
	c.ReadBodyTimeout = r.duration("READ_BODY_TIMEOUT", 10*time.Second)
	c.DatabaseURL = r.str("DATABASE_URL", "")
	c.WorkerID = r.str("WORKER_ID", "")
	c.QueueMax = r.integer("QUEUE_MAX", 100)
	c.PoolLease = r.duration("POOL_LEASE", 30*time.Second)
	return c
}

func (r *reader) readModel(c *Config) {
	// genai's precedence: GOOGLE_API_KEY over GEMINI_API_KEY.
	c.GeminiAPIKey = r.str("GOOGLE_API_KEY", r.str("GEMINI_API_KEY", ""))
	c.GeminiBaseURL = r.str("GOOGLE_GEMINI_BASE_URL", "")
	c.ModelSettings = r.readModelSettings()
	defaultProvider := "scripted"
	if c.GeminiAPIKey != "" || c.Vertex {
		defaultProvider = "gemini"
	}
	c.ModelProvider = strings.ToLower(r.str("MODEL_PROVIDER", defaultProvider))
	c.ModelProviderDefaulted = r.str("MODEL_PROVIDER", "") == "" && c.ModelProvider == "scripted"
	c.ModelID = r.str("MODEL_ID", "gemini-2.5-flash")
	c.ReviewerModelID = r.str("REVIEWER_MODEL_ID", c.ModelID)
	c.WriterModelID = r.str("WRITER_MODEL_ID", c.ModelID)
	c.ValidatorModelID = r.str("VALIDATOR_MODEL_ID", c.ModelID)
	c.RefinerModelID = r.str("REFINER_MODEL_ID", c.ModelID)
	c.OpenAIBaseURL = r.str("OPENAI_BASE_URL", "")
	c.OpenAIAPIKey = r.str("OPENAI_API_KEY", "")
	c.ScriptedModelFile = r.str("SCRIPTED_MODEL_FILE", filepath.Join("examples", "sample-image", "demo-model.json"))
}

// validate checks field rules (validator/v10) and the rules across fields.
func (c *Config) validate() error {
	v := validator.New(validator.WithRequiredStructEnabled())
	var errs []error
	if err := v.Struct(c); err != nil {
		var verrs validator.ValidationErrors
		if !errors.As(err, &verrs) {
			return fmt.Errorf("config: %w", err)
		}
		for _, fe := range verrs {
			errs = append(errs, fieldError(fe))
		}
	}
	errs = append(errs, c.crossChecks()...)
	return errors.Join(errs...)
}

func (c *Config) crossChecks() []error {
	var errs []error
	switch c.ModelProvider {
	case "gemini":
		switch {
		case c.Vertex && (c.VertexProject != "" || c.VertexLocation != "") && (c.VertexProject == "" || c.VertexLocation == ""):
			errs = append(errs, errors.New("GOOGLE_GENAI_USE_VERTEXAI=true needs both GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION"))
		case c.Vertex && c.VertexProject == "" && c.GeminiAPIKey == "" && c.VertexBaseURL == "":
			errs = append(errs, errors.New("GOOGLE_GENAI_USE_VERTEXAI=true needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (with Application Default Credentials), or GOOGLE_API_KEY for express mode"))
		case !c.Vertex && c.GeminiAPIKey == "":
			errs = append(errs, errors.New("MODEL_PROVIDER=gemini needs GEMINI_API_KEY or GOOGLE_API_KEY (or GOOGLE_GENAI_USE_VERTEXAI=true for Vertex AI)"))
		}
	case "openai":
		if c.OpenAIBaseURL == "" {
			errs = append(errs, errors.New("MODEL_PROVIDER=openai needs OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1)"))
		}
	case "scripted":
		if c.ScriptedModelFile == "" {
			errs = append(errs, errors.New("MODEL_PROVIDER=scripted needs SCRIPTED_MODEL_FILE"))
		}
	}
	if _, _, err := net.SplitHostPort(c.ListenAddr); err == nil && len(c.APIKeys) == 0 && !isLoopback(c.ListenAddr) {
		if !c.AllowUnauthenticated {
			errs = append(errs, fmt.Errorf("LISTEN_ADDR=%s is not loopback and API_KEYS is empty: set API_KEYS, or ALLOW_UNAUTHENTICATED=true to accept anyone", c.ListenAddr))
		} else {
			c.Warnings = append(c.Warnings, "ALLOW_UNAUTHENTICATED=true: anyone who reaches "+c.ListenAddr+" can write into the image")
		}
	}
	for _, k := range c.APIKeys {
		if len(k) < 16 {
			errs = append(errs, errors.New("API_KEYS: every key must be at least 16 characters"))
			break
		}
	}
	for i, o := range c.CORSAllowOrigins {
		origin, err := normalizeOrigin(o)
		if err != nil {
			errs = append(errs, fmt.Errorf("CORS_ALLOW_ORIGINS: %w", err))
			continue
		}
		c.CORSAllowOrigins[i] = origin
	}
	return errs
}

// ListensOnLoopback reports whether LISTEN_ADDR is a loopback address: the
// API then answers only requests addressed to a loopback name (DNS
// rebinding).
func (c Config) ListensOnLoopback() bool { return isLoopback(c.ListenAddr) }

// normalizeOrigin checks that o is a web origin and writes it as browsers
// send it in the Origin header: lower case, no default port, no path.
func normalizeOrigin(o string) (string, error) {
	if o == "*" || strings.EqualFold(o, "null") {
		return "", fmt.Errorf("%q is not accepted: this service writes into a live image; list each origin that may call it (e.g. https://ide.example.com)", o)
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("%q is not an origin: want scheme://host[:port], e.g. https://ide.example.com or http://localhost:3000", o)
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		return scheme + "://" + host, nil
	}
	return scheme + "://" + host + ":" + port, nil
}

// isLoopback reports whether addr listens on loopback only.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func fieldError(fe validator.FieldError) error {
	name := envName(fe.StructField())
	val := fmt.Sprint(fe.Value())
	if strings.Contains(name, "KEY") {
		val = "(hidden)"
	}
	switch fe.Tag() {
	case "required":
		return fmt.Errorf("%s must not be empty", name)
	case "oneof":
		return fmt.Errorf("%s=%s: must be one of %s", name, val, strings.ReplaceAll(fe.Param(), " ", ", "))
	case "min", "max":
		return fmt.Errorf("%s=%s: must be %s %s", name, val, map[string]string{"min": "at least", "max": "at most"}[fe.Tag()], fe.Param())
	case "hostname_port":
		return fmt.Errorf("%s=%s: must be host:port (e.g. 127.0.0.1:8000)", name, val)
	case "http_url":
		return fmt.Errorf("%s=%s: must be an http(s) URL", name, val)
	case "contains":
		return fmt.Errorf("%s: every entry must be KEY=VALUE, got %q", name, val)
	default:
		return fmt.Errorf("%s=%s: fails %s", name, val, fe.Tag())
	}
}

// envName maps a struct field to its variable through the env tag.
func envName(field string) string {
	if i := strings.IndexByte(field, '['); i >= 0 {
		field = field[:i] // PharoMCPEnv[0] → PharoMCPEnv
	}
	if f, ok := reflect.TypeOf(Config{}).FieldByName(field); ok {
		if e := f.Tag.Get("env"); e != "" && e != "-" {
			return e
		}
	}
	return field
}

// reader collects parse errors so that every mistake is reported at once.
type reader struct {
	lookup func(string) (string, bool)
	errs   []error
}

func (r *reader) str(key, def string) string {
	if v, ok := r.lookup(key); ok && strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v)
	}
	return def
}

func (r *reader) list(key string) []string {
	var out []string
	for _, part := range strings.Split(r.str(key, ""), ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (r *reader) integer(key string, def int) int {
	s := r.str(key, "")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s=%s: must be a whole number", key, s))
		return def
	}
	return n
}

func (r *reader) boolean(key string, def bool) bool {
	s := r.str(key, "")
	if s == "" {
		return def
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s=%s: must be true or false", key, s))
		return def
	}
	return b
}

// duration accepts Go durations (90s, 2m) and plain seconds (the original's 1200).
func (r *reader) duration(key string, def time.Duration) time.Duration {
	s := r.str(key, "")
	if s == "" {
		return def
	}
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s=%s: must be a duration such as 60s or 2m", key, s))
		return def
	}
	return d
}

// args reads a command line split like a shell, or a JSON list of
// strings (the form the original's PHARO_MCP_SERVER_ARGS takes).
func (r *reader) args(key string, def []string) []string {
	s, ok := r.lookup(key)
	if !ok {
		return def
	}
	if strings.HasPrefix(strings.TrimSpace(s), "[") {
		var list []string
		if err := json.Unmarshal([]byte(s), &list); err != nil {
			r.errs = append(r.errs, fmt.Errorf("%s: a JSON list of strings was expected: %w", key, err))
			return def
		}
		return list
	}
	args, err := splitArgs(s)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %w", key, err))
		return def
	}
	return args
}
