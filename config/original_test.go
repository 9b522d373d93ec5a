package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The original's .env, as its README had users write it, starts this
// service on the MCP server it names; what means nothing here is named.
func TestOriginalDotenv(t *testing.T) {
	t.Parallel()
	dotenv, err := ParseDotenv(`
GOOGLE_API_KEY=g-key
app_name=Pharo Reviewer Agent API
APP_VERSION=1.0.0
DEBUG=true
MODEL_ID=gemini-2.0-flash
PHARO_SERVER_URL=http://localhost:8086
PHARO_MCP_SERVER_COMMAND=/usr/local/bin/uv
PHARO_MCP_SERVER_ARGS=["run", "pharo-smalltalk-interop-mcp-server"]
PHARO_MCP_SERVER_CWD=/opt/pharo-mcp  # path to the MCP server
PHARO_MCP_TIMEOUT=30
MAX_VALIDATION_ITERATIONS=3
CORS_ORIGINS=*
CORS_ALLOW_CREDENTIALS=true
CORS_ALLOW_METHODS=*
CORS_ALLOW_HEADERS=*
REFACTORD_TYPO=1
`)
	require.NoError(t, err)
	cfg, err := Load(env(nil), dotenv)
	require.NoError(t, err)
	assert.Equal(t, "/usr/local/bin/uv", cfg.PharoMCPCommand)
	assert.Equal(t, []string{"run", "pharo-smalltalk-interop-mcp-server"}, cfg.PharoMCPArgs)
	assert.Equal(t, "/opt/pharo-mcp", cfg.PharoMCPCwd)
	assert.Equal(t, []string{"PHARO_SERVER_URL=http://localhost:8086", "PHARO_SIS_PORT=8086"}, cfg.PharoMCPEnv)
	assert.Equal(t, "Pharo Reviewer Agent API", cfg.AppName, ".env keys in any case, as pydantic read them")
	assert.Equal(t, "1.0.0", cfg.AppVersion)
	assert.Equal(t, "debug", cfg.LogLevel)
	assert.Equal(t, "gemini", cfg.ModelProvider)
	assert.Equal(t, "gemini-2.0-flash", cfg.ModelID)
	assert.Empty(t, cfg.CORSAllowOrigins, `"*" lets in no page here`)

	warnings := cfg.Warnings
	for _, want := range []string{
		"PHARO_MCP_SERVER_COMMAND is deprecated", "PHARO_MCP_SERVER_ARGS is deprecated", "PHARO_MCP_SERVER_CWD is deprecated",
		"DEBUG is deprecated", "CORS_ORIGINS is deprecated", "PHARO_SERVER_URL is deprecated",
		"CORS_ALLOW_CREDENTIALS (the original service's) has no meaning here",
		"CORS_ALLOW_METHODS (the original service's) has no meaning here",
		"CORS_ALLOW_HEADERS (the original service's) has no meaning here",
		"REFACTORD_TYPO (in .env) is not a variable of this service",
	} {
		assert.True(t, containsPrefix(warnings, want), "a line says %q: %q", want, warnings)
	}
	for _, same := range []string{"GOOGLE_API_KEY", "APP_NAME", "APP_VERSION", "MODEL_ID", "PHARO_MCP_TIMEOUT", "MAX_VALIDATION_ITERATIONS"} {
		assert.False(t, containsPrefix(warnings, same), "%s means the same here: no notice", same)
	}
	assert.Len(t, warnings, 10, "one line each: %q", warnings)
}

// The names of this service win over the original's; the original's are
// read from the environment too, and their mistakes are named.
func TestOriginalNamesYieldToNativeOnes(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(map[string]string{
		"PHARO_MCP_COMMAND": "bin/pharo-sim", "PHARO_MCP_SERVER_COMMAND": "uv",
		"PHARO_MCP_SERVER_ARGS": "serve --dir 'my image'",
		"PHARO_MCP_ENV":         "PHARO_SIS_PORT=9999",
		"PHARO_SERVER_URL":      "http://localhost:8086",
		"CORS_ORIGINS":          `["http://localhost:3000", "*"]`,
		"GOOGLE_CLOUD_PROJECT":  "p",
	}), nil)
	require.NoError(t, err)
	assert.Equal(t, "bin/pharo-sim", cfg.PharoMCPCommand)
	assert.Equal(t, []string{"serve", "--dir", "my image"}, cfg.PharoMCPArgs)
	assert.Equal(t, []string{"PHARO_SIS_PORT=9999", "PHARO_SERVER_URL=http://localhost:8086"}, cfg.PharoMCPEnv, "PHARO_MCP_ENV wins")
	assert.Equal(t, []string{"http://localhost:3000"}, cfg.CORSAllowOrigins)
	assert.True(t, containsPrefix(cfg.Warnings, "PHARO_MCP_SERVER_COMMAND (the original service's name for PHARO_MCP_COMMAND) is ignored"), "%q", cfg.Warnings)
	assert.True(t, containsPrefix(cfg.Warnings, "GOOGLE_CLOUD_PROJECT (the original service's) has no meaning here"), "%q", cfg.Warnings)

	for _, bad := range []map[string]string{
		{"DEBUG": "maybe"}, {"PHARO_SERVER_URL": "localhost"}, {"PHARO_MCP_SERVER_ARGS": `["run", 1]`},
	} {
		_, err := Load(env(bad), nil)
		assert.Error(t, err, "%v", bad)
	}
}

func containsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if len(l) >= len(prefix) && l[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}
