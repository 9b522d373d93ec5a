package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTestGateSettings: the tests around a release have their own budget
// and bounds.
func TestTestGateSettings(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(nil), nil)
	require.NoError(t, err)
	assert.Equal(t, 60*time.Second, cfg.TestTimeout)
	assert.Equal(t, 10, cfg.TestMaxClasses)
	assert.Empty(t, cfg.TestPackages, "no package beyond the method's own unless configured")

	cfg, err = Load(env(map[string]string{"TEST_TIMEOUT": "300", "TEST_MAX_CLASSES": "3", "TEST_PACKAGES": "MyApp-Tests, MyApp-*"}), nil)
	require.NoError(t, err)
	assert.Equal(t, 5*time.Minute, cfg.TestTimeout, "plain seconds")
	assert.Equal(t, 3, cfg.TestMaxClasses)
	assert.Equal(t, []string{"MyApp-Tests", "MyApp-*"}, cfg.TestPackages)

	cases := map[string]map[string]string{
		"TEST_TIMEOUT=500ms: must be at least 1s": {"TEST_TIMEOUT": "500ms"},
		"TEST_TIMEOUT=soon: must be a duration":   {"TEST_TIMEOUT": "soon"},
		"TEST_MAX_CLASSES=0: must be at least 1":  {"TEST_MAX_CLASSES": "0"},
		"TEST_MAX_CLASSES=many: must be a whole":  {"TEST_MAX_CLASSES": "many"},
	}
	for want, vars := range cases {
		_, err := Load(env(vars), nil)
		require.Error(t, err, want)
		assert.Contains(t, err.Error(), want)
	}
}

// TestEquivalenceSettings: the comparison is on by default, bounded in
// inputs, and refuses what it cannot read.
func TestEquivalenceSettings(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(nil), nil)
	require.NoError(t, err)
	assert.True(t, cfg.Equivalence, "on wherever the image offers it")
	assert.Equal(t, 64, cfg.EquivalenceMaxInputs)

	cfg, err = Load(env(map[string]string{"EQUIVALENCE": "off", "EQUIVALENCE_MAX_INPUTS": "8"}), nil)
	require.NoError(t, err)
	assert.False(t, cfg.Equivalence)
	assert.Equal(t, 8, cfg.EquivalenceMaxInputs)

	for _, vars := range []map[string]string{
		{"EQUIVALENCE": "maybe"},
		{"EQUIVALENCE_MAX_INPUTS": "0"},
		{"EQUIVALENCE_MAX_INPUTS": "1000"},
		{"EQUIVALENCE_MAX_INPUTS": "all"},
	} {
		_, err := Load(env(vars), nil)
		assert.Error(t, err, "%v", vars)
	}
}
