package config

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(kv map[string]string) Getenv {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(nil), nil)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:8000", cfg.ListenAddr, "the original's port")
	assert.Equal(t, "refactord", cfg.AppName)
	assert.Empty(t, cfg.AppVersion, "the build's version")
	assert.Equal(t, "bin/pharo-sim", cfg.PharoMCPCommand)
	assert.Equal(t, []string{"serve", "--dir", ".data/image"}, cfg.PharoMCPArgs)
	assert.Equal(t, 60*time.Second, cfg.PharoMCPTimeout)
	assert.Equal(t, "scripted", cfg.ModelProvider, "no key: the offline demo model")
	assert.Equal(t, "gemini-2.5-flash", cfg.ModelID)
	assert.Equal(t, cfg.ModelID, cfg.ValidatorModelID)
	assert.Equal(t, "examples/sample-image/demo-model.json", cfg.ScriptedModelFile)
	assert.Equal(t, 120*time.Second, cfg.ModelTimeout)
	assert.Equal(t, 4, cfg.ModelMaxRetries)
	assert.Equal(t, 3, cfg.MaxValidationIterations)
	assert.Equal(t, 2, cfg.ReviewerMaxToolRounds)
	assert.Equal(t, 20*time.Minute, cfg.PipelineTimeout)
	assert.Equal(t, ".data", cfg.DataDir)
	assert.Equal(t, "info", cfg.LogLevel)
	assert.Equal(t, "json", cfg.LogFormat)
	assert.Empty(t, cfg.Warnings)
	assert.True(t, cfg.ModelProviderDefaulted)
	assert.Equal(t, 10*time.Second, cfg.ReadHeaderTimeout)
	assert.Equal(t, 10*time.Second, cfg.ReadBodyTimeout)
	assert.Empty(t, cfg.CORSAllowOrigins, "no web page may call the API unless listed")
	assert.True(t, cfg.ListensOnLoopback())
	explicit, err := Load(env(map[string]string{"MODEL_PROVIDER": "scripted"}), nil)
	require.NoError(t, err)
	assert.False(t, explicit.ModelProviderDefaulted, "an explicit choice is not a default")
}

func TestValues(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(map[string]string{
		"GOOGLE_API_KEY":            "g-key",
		"REFINER_MODEL_ID":          "gemini-2.5-pro",
		"PHARO_MCP_ARGS":            `--directory "/opt/pharo mcp" run 'pharo-smalltalk-interop-mcp-server'`,
		"PHARO_MCP_ENV":             "PHARO_SIS_PORT=8086, A=b",
		"PIPELINE_TIMEOUT":          "1200",
		"MAX_VALIDATION_ITERATIONS": "5",
		"API_KEYS":                  "0123456789abcdef, fedcba9876543210",
		"LISTEN_ADDR":               "0.0.0.0:9000",
		"DATA_DIR":                  "/var/lib/refactord",
	}), map[string]string{"MODEL_ID": "from-dotenv", "GOOGLE_API_KEY": "ignored: the environment wins"})
	require.NoError(t, err)
	assert.Equal(t, "gemini", cfg.ModelProvider, "a key selects gemini")
	assert.Equal(t, "g-key", cfg.GeminiAPIKey)
	assert.Equal(t, "from-dotenv", cfg.ModelID)
	assert.Equal(t, "from-dotenv", cfg.ReviewerModelID)
	assert.Equal(t, "gemini-2.5-pro", cfg.RefinerModelID)
	assert.Equal(t, []string{"--directory", "/opt/pharo mcp", "run", "pharo-smalltalk-interop-mcp-server"}, cfg.PharoMCPArgs)
	assert.Equal(t, []string{"PHARO_SIS_PORT=8086", "A=b"}, cfg.PharoMCPEnv)
	assert.Equal(t, 20*time.Minute, cfg.PipelineTimeout, "plain seconds as the original")
	assert.Equal(t, 5, cfg.MaxValidationIterations)
	assert.Len(t, cfg.APIKeys, 2)
}

func TestMistakes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  map[string]string
		want []string // each must appear on its own line
	}{
		{"bad number", map[string]string{"MAX_VALIDATION_ITERATIONS": "three"}, []string{"MAX_VALIDATION_ITERATIONS=three: must be a whole number"}},
		{"out of range", map[string]string{"MAX_VALIDATION_ITERATIONS": "0"}, []string{"MAX_VALIDATION_ITERATIONS=0: must be at least 1"}},
		{"bad duration", map[string]string{"MODEL_TIMEOUT": "soon"}, []string{"MODEL_TIMEOUT=soon: must be a duration"}},
		{"bad provider", map[string]string{"MODEL_PROVIDER": "claude"}, []string{"MODEL_PROVIDER=claude: must be one of gemini, openai, scripted"}},
		{"gemini without key", map[string]string{"MODEL_PROVIDER": "gemini"}, []string{"MODEL_PROVIDER=gemini needs GEMINI_API_KEY or GOOGLE_API_KEY"}},
		{"openai without url", map[string]string{"MODEL_PROVIDER": "openai"}, []string{"MODEL_PROVIDER=openai needs OPENAI_BASE_URL"}},
		{"bad url", map[string]string{"MODEL_PROVIDER": "openai", "OPENAI_BASE_URL": "localhost:11434"}, []string{"OPENAI_BASE_URL=localhost:11434: must be an http(s) URL"}},
		{"public without keys", map[string]string{"LISTEN_ADDR": "0.0.0.0:8080"}, []string{"LISTEN_ADDR=0.0.0.0:8080 is not loopback and API_KEYS is empty"}},
		{"bad listen", map[string]string{"LISTEN_ADDR": "8080"}, []string{"LISTEN_ADDR=8080: must be host:port"}},
		{"short key", map[string]string{"API_KEYS": "abc"}, []string{"API_KEYS: every key must be at least 16 characters"}},
		{"bad env entry", map[string]string{"PHARO_MCP_ENV": "PORT"}, []string{"PHARO_MCP_ENV: every entry must be KEY=VALUE"}},
		{"unterminated quote", map[string]string{"PHARO_MCP_ARGS": `serve --dir "x`}, []string{"PHARO_MCP_ARGS: unterminated quote"}},
		{"bad level", map[string]string{"LOG_LEVEL": "loud"}, []string{"LOG_LEVEL=loud: must be one of debug, info, warn, error"}},
		{"body timeout too short", map[string]string{"READ_BODY_TIMEOUT": "10ms"}, []string{"READ_BODY_TIMEOUT=10ms: must be at least 100ms"}},
		{"header timeout too long", map[string]string{"READ_HEADER_TIMEOUT": "1h"}, []string{"READ_HEADER_TIMEOUT=1h0m0s: must be at most 10m"}},
		{"bad header timeout", map[string]string{"READ_HEADER_TIMEOUT": "slow"}, []string{"READ_HEADER_TIMEOUT=slow: must be a duration"}},
		{"wildcard origin", map[string]string{"CORS_ALLOW_ORIGINS": "*"}, []string{`CORS_ALLOW_ORIGINS: "*" is not accepted`}},
		{"null origin", map[string]string{"CORS_ALLOW_ORIGINS": "null"}, []string{`CORS_ALLOW_ORIGINS: "null" is not accepted`}},
		{"origin with a path", map[string]string{"CORS_ALLOW_ORIGINS": "https://ide.example.com/app"}, []string{`CORS_ALLOW_ORIGINS: "https://ide.example.com/app" is not an origin`}},
		{"origin without scheme", map[string]string{"CORS_ALLOW_ORIGINS": "ide.example.com"}, []string{`CORS_ALLOW_ORIGINS: "ide.example.com" is not an origin`}},
		{"two bad origins", map[string]string{"CORS_ALLOW_ORIGINS": "ftp://x, https://u:p@x"}, []string{`CORS_ALLOW_ORIGINS: "ftp://x"`, `CORS_ALLOW_ORIGINS: "https://u:p@x"`}},
		{"two mistakes at once", map[string]string{"LOG_FORMAT": "xml", "REVIEWER_MAX_TOOL_ROUNDS": "99"}, []string{"LOG_FORMAT=xml", "REVIEWER_MAX_TOOL_ROUNDS=99: must be at most 10"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(env(tc.env), nil)
			require.Error(t, err)
			lines := strings.Split(err.Error(), "\n")
			assert.Len(t, lines, len(tc.want), err.Error())
			for _, w := range tc.want {
				found := false
				for _, l := range lines {
					found = found || strings.HasPrefix(l, w)
				}
				assert.True(t, found, "want a line starting %q in:\n%s", w, err)
			}
		})
	}
}

func TestEdgeValues(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(map[string]string{
		"READ_HEADER_TIMEOUT": "2s",
		"READ_BODY_TIMEOUT":   "45",
		"CORS_ALLOW_ORIGINS":  "https://IDE.example.com:443/, http://localhost:3000, http://[::1]:80, http://127.0.0.1:8081",
		"LISTEN_ADDR":         "localhost:8080",
	}), nil)
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, cfg.ReadHeaderTimeout)
	assert.Equal(t, 45*time.Second, cfg.ReadBodyTimeout, "plain seconds")
	assert.Equal(t, []string{"https://ide.example.com", "http://localhost:3000", "http://[::1]", "http://127.0.0.1:8081"}, cfg.CORSAllowOrigins,
		"written as browsers send Origin: lower case, no default port, no slash")
	assert.True(t, cfg.ListensOnLoopback())
	public, err := Load(env(map[string]string{"LISTEN_ADDR": "0.0.0.0:8080", "API_KEYS": "0123456789abcdef"}), nil)
	require.NoError(t, err)
	assert.False(t, public.ListensOnLoopback())
}

func TestUnauthenticatedOptIn(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(map[string]string{"LISTEN_ADDR": "0.0.0.0:8080", "ALLOW_UNAUTHENTICATED": "true"}), nil)
	require.NoError(t, err)
	require.Len(t, cfg.Warnings, 1)
	assert.Contains(t, cfg.Warnings[0], "anyone")
}

func TestSecretsNotEchoed(t *testing.T) {
	t.Parallel()
	_, err := Load(env(map[string]string{"MODEL_PROVIDER": "openai", "OPENAI_BASE_URL": "http://x", "OPENAI_API_KEY": "sk-secret", "MODEL_ID": strings.Repeat("m", 300)}), nil)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "sk-secret")
}

func TestSplitArgs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"serve --dir .data/image", []string{"serve", "--dir", ".data/image"}, false},
		{`a "b c" 'd e' f\ g`, []string{"a", "b c", "d e", "f g"}, false},
		{`"say \"hi\"" ''`, []string{`say "hi"`, ""}, false},
		{`'unterminated`, nil, true},
		{`trailing\`, nil, true},
	}
	for _, tc := range cases {
		got, err := splitArgs(tc.in)
		if tc.err {
			assert.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestParseDotenv(t *testing.T) {
	t.Parallel()
	got, err := ParseDotenv("# comment\nexport A=1\nB = \"two words\"\r\n\nC='x'\nD=/opt/mcp  # where it lives\nE=\"a # b\" # c\nF=[\"run\", \"x\"]\nG=a#b\n")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"A": "1", "B": "two words", "C": "x", "D": "/opt/mcp", "E": "a # b", "F": `["run", "x"]`, "G": "a#b"}, got)
	_, err = ParseDotenv("NOEQUALS\n")
	assert.ErrorContains(t, err, ".env line 1")
}
