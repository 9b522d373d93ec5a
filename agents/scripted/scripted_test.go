package scripted

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
)

func req(subject string, role refactor.Role) agents.Request {
	return agents.Request{Role: role, Subject: subject, System: "system", Messages: []agents.Message{agents.UserText("hello")}}
}

func TestExampleFileAnswersInOrder(t *testing.T) {
	m, err := Load("testdata/example.json")
	require.NoError(t, err)
	ctx := context.Background()

	r, err := m.Generate(ctx, req("Calculator>>sum:with:", refactor.RoleReviewer))
	require.NoError(t, err)
	assert.Contains(t, r.Text, `"severity": "MEDIUM"`)
	assert.Equal(t, agents.Usage{InputTokens: 812, OutputTokens: 64}, r.Usage)

	for _, want := range []string{"NEEDS_IMPROVEMENT", "APPROVED"} {
		v, err := m.Generate(ctx, req("Calculator>>sum:with:", refactor.RoleValidator))
		require.NoError(t, err)
		assert.Contains(t, v.Text, `"verdict":"`+want+`"`, "json answers are sent compact")
		assert.Positive(t, v.Usage.InputTokens, "usage is estimated when not scripted")
	}

	_, err = m.Generate(ctx, req("Calculator>>sum:with:", refactor.RoleValidator))
	require.Error(t, err)
	assert.Equal(t, refactor.ModelUnavailable, refactor.KindOf(err))
	assert.Contains(t, err.Error(), "validator")
	assert.Contains(t, err.Error(), "Calculator>>sum:with:")
}

func TestExactKeyBeatsWildcardAndWildcardIsPerSubject(t *testing.T) {
	m, err := Load("testdata/example.json")
	require.NoError(t, err)
	ctx := context.Background()

	w, err := m.Generate(ctx, req("Calculator>>sum:with:", refactor.RoleWriter))
	require.NoError(t, err)
	assert.Contains(t, w.Text, "first try")

	for _, subject := range []string{"Foo>>bar", "Foo class>>new"} {
		first, err := m.Generate(ctx, req(subject, refactor.RoleReviewer))
		require.NoError(t, err)
		require.Len(t, first.ToolCalls, 1, subject)
		assert.Equal(t, "get_class_comment", first.ToolCalls[0].Name)
		assert.Equal(t, agents.FinishToolCalls, first.FinishReason)
		second, err := m.Generate(ctx, req(subject, refactor.RoleReviewer))
		require.NoError(t, err)
		assert.Contains(t, second.Text, "LOW")
	}

	_, err = m.Generate(ctx, req("Foo>>bar", refactor.RoleRefiner))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no refiner answers for Foo>>bar")
}

func TestRepeatStartsOver(t *testing.T) {
	m, err := Parse([]byte(`{"repeat": true, "answers": {"*": {"writer": [{"text": "one"}, {"text": "two"}]}}}`))
	require.NoError(t, err)
	var got []string
	for range 5 {
		r, err := m.Generate(context.Background(), req("Foo>>bar", refactor.RoleWriter))
		require.NoError(t, err)
		got = append(got, r.Text)
	}
	assert.Equal(t, []string{"one", "two", "one", "two", "one"}, got)
}

func TestScriptedFailuresAndFinishReasons(t *testing.T) {
	m, err := Parse([]byte(`{"answers": {"*": {
		"writer": [{"text": "{\"code\": \"foo", "finish_reason": "length"}, {"finish_reason": "safety"}, {"error": "quota exhausted"}]}}}`))
	require.NoError(t, err)
	ctx := context.Background()
	cut, err := m.Generate(ctx, req("Foo>>bar", refactor.RoleWriter))
	require.NoError(t, err)
	assert.Equal(t, agents.FinishLength, cut.FinishReason)
	blocked, err := m.Generate(ctx, req("Foo>>bar", refactor.RoleWriter))
	require.NoError(t, err)
	assert.Equal(t, agents.FinishSafety, blocked.FinishReason)
	_, err = m.Generate(ctx, req("Foo>>bar", refactor.RoleWriter))
	assert.Equal(t, refactor.ModelUnavailable, refactor.KindOf(err))
	assert.Contains(t, err.Error(), "quota exhausted")
}

func TestDelayHonoursTheContext(t *testing.T) {
	m, err := Parse([]byte(`{"answers": {"*": {"writer": [{"text": "late", "delay_ms": 600000}]}}}`))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = m.Generate(ctx, req("Foo>>bar", refactor.RoleWriter))
	require.Error(t, err)
	assert.Equal(t, refactor.Timeout, refactor.KindOf(err))
}

func TestConcurrentUseTakesEachAnswerOnce(t *testing.T) {
	const n = 50
	var answers strings.Builder
	answers.WriteString(`{"answers": {"Foo>>bar": {"writer": [`)
	for i := range n {
		if i > 0 {
			answers.WriteString(",")
		}
		answers.WriteString(`{"text": "answer", "delay_ms": 1}`)
	}
	answers.WriteString(`]}}}`)
	m, err := Parse([]byte(answers.String()))
	require.NoError(t, err)

	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, failed := 0, 0
	for range n + 10 {
		wg.Go(func() {
			_, err := m.Generate(context.Background(), req("Foo>>bar", refactor.RoleWriter))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed++
				return
			}
			ok++
		})
	}
	wg.Wait()
	assert.Equal(t, n, ok)
	assert.Equal(t, 10, failed)
}

func TestParseRejectsBadFiles(t *testing.T) {
	cases := []struct{ name, file, want string }{
		{"not JSON", `{`, "unexpected EOF"},
		{"no answers", `{"answers": {}}`, `"answers" is empty`},
		{"typo in a field", `{"answers": {"*": {"writer": [{"txt": "x"}]}}}`, "unknown field"},
		{"unknown role", `{"answers": {"*": {"critic": [{"text": "x"}]}}}`, `unknown role "critic"`},
		{"bad key", `{"answers": {"Calculator": {"writer": [{"text": "x"}]}}}`, `key "Calculator"`},
		{"two kinds", `{"answers": {"*": {"writer": [{"text": "x", "error": "y"}]}}}`, "only one of"},
		{"no kind", `{"answers": {"*": {"writer": [{"delay_ms": 3}]}}}`, "give one of"},
		{"bad finish", `{"answers": {"*": {"writer": [{"text": "x", "finish_reason": "done"}]}}}`, "unknown finish_reason"},
		{"negative delay", `{"answers": {"*": {"writer": [{"text": "x", "delay_ms": -1}]}}}`, "delay_ms"},
		{"nameless tool call", `{"answers": {"*": {"reviewer": [{"tool_call": {"args": {}}}]}}}`, "no name"},
		{"trailing data", `{"answers": {"*": {"writer": [{"text": "x"}]}}} {}`, "trailing data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.file))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestLoadBoundsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(path, make([]byte, MaxFileBytes+1), 0o600))
	_, err := Load(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "over")

	_, err = Load(filepath.Join(t.TempDir(), "missing.json"))
	assert.Error(t, err)
}
