package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// fakeGemini speaks generateContent on loopback and counts the requests it
// gets, per role. It tells the roles apart by their system instructions
// (agents/prompts/*.md), as the API tests do, and answers each role from
// the current scenario's queue; the last answer of a queue repeats.
type fakeGemini struct {
	mu      sync.Mutex
	queues  map[string][]string
	calls   map[string]int
	unknown int
}

func geminiRole(system string) string {
	switch {
	case strings.Contains(system, "senior Pharo Smalltalk reviewer"):
		return "reviewer"
	case strings.Contains(system, "strict Pharo Smalltalk code validator"):
		return "validator"
	case strings.Contains(system, "was not\naccepted") || strings.Contains(system, "was not accepted"):
		return "refiner"
	case strings.Contains(system, "You rewrite one method"):
		return "writer"
	}
	return ""
}

// reset starts a scenario: new queues, counts at zero.
func (f *fakeGemini) reset(queues map[string][]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queues, f.calls, f.unknown = queues, map[string]int{}, 0
}

func (f *fakeGemini) counts() (map[string]int, int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out, total := map[string]int{}, 0
	for k, v := range f.calls {
		out[k] = v
		total += v
	}
	return out, total, f.unknown
}

func (f *fakeGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		SystemInstruction struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"systemInstruction"`
	}
	role := ""
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, ":generateContent") &&
		json.NewDecoder(r.Body).Decode(&req) == nil && len(req.SystemInstruction.Parts) > 0 {
		role = geminiRole(req.SystemInstruction.Parts[0].Text)
	}
	f.mu.Lock()
	text, ok := "", false
	if role == "" {
		f.unknown++
	} else {
		f.calls[role]++
		if q := f.queues[role]; len(q) > 0 {
			text, ok = q[0], true
			if len(q) > 1 {
				f.queues[role] = q[1:]
			}
		}
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusBadRequest) // not retried: the run fails at once
		fmt.Fprintf(w, `{"error":{"code":400,"message":"bench: no scripted answer for role %q","status":"INVALID_ARGUMENT"}}`, role)
		return
	}
	body, _ := json.Marshal(map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}},
			"finishReason": "STOP",
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
	})
	_, _ = w.Write(body)
}

// callScenario is one run whose model calls are counted.
type callScenario struct {
	name     string
	queues   map[string][]string
	status   int // the answer the run must get, else the count means nothing
	design   int // what DESIGN.md says the count is
	original string
	how      string
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func callScenarios() []callScenario {
	review := jsonText(benchReview)
	code := func(c string) string { return jsonText(map[string]string{"code": c, "notes": "bench"}) }
	approved := jsonText(benchApproved)
	needsWork := jsonText(map[string]any{"verdict": "NEEDS_IMPROVEMENT", "feedback": "Name the roles better.", "issues": []any{}})
	v3 := "sum: left with: right\n\n\t^ left + right"
	broken := "sum: a with: b\n\t^ (a + b"
	return []callScenario{
		{
			name:   "approved_round_1",
			queues: map[string][]string{"reviewer": {review}, "writer": {code(sumVersions[0])}, "validator": {approved}},
			status: http.StatusOK, design: 3,
			original: "≥5 agent turns", how: "review, write, validate",
		},
		{
			name:   "approved_round_2",
			queues: map[string][]string{"reviewer": {review}, "writer": {code(sumVersions[1])}, "validator": {needsWork, approved}, "refiner": {code(v3)}},
			status: http.StatusOK, design: 5,
			original: "≥7 agent turns", how: "review, write, validate, refine, validate",
		},
		{
			name:   "unparseable_then_approved",
			queues: map[string][]string{"reviewer": {review}, "writer": {code(broken)}, "validator": {approved}, "refiner": {code(sumVersions[0])}},
			status: http.StatusOK, design: 4,
			original: "n/a", how: "review, write (does not parse: no validator call), refine, validate",
		},
		{
			name:   "never_approved",
			queues: map[string][]string{"reviewer": {review}, "writer": {code(sumVersions[1])}, "validator": {needsWork}, "refiner": {code(v3)}},
			status: http.StatusUnprocessableEntity, design: 7,
			original: "≥8 agent turns", how: "MAX_VALIDATION_ITERATIONS=3: review, write, 3 validations, 2 refinements; 422 not_approved",
		},
	}
}

// modelCallsSuite runs each scenario through refactord on MODEL_PROVIDER=
// gemini against the fake server and counts the requests that reach it.
func modelCallsSuite(e env) ([]figure, error) {
	fake := &fakeGemini{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := httptest.NewUnstartedServer(fake)
	_ = srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	svc, err := startService(e, "model-calls", map[string]string{
		"MODEL_PROVIDER": "gemini", "GEMINI_API_KEY": "x", "GOOGLE_GEMINI_BASE_URL": srv.URL,
		"MAX_VALIDATION_ITERATIONS": "3", "MODEL_MAX_RETRIES": "0",
	})
	if err != nil {
		return nil, err
	}
	defer svc.stop()
	calls := map[string]int{}
	var rows []figure
	client := &http.Client{Timeout: time.Minute}
	for _, sc := range callScenarios() {
		fake.reset(sc.queues)
		resp, data, err := post(e.ctx, client, svc.url+"/api/v1/refactor", refactorBody(benchMethod.Class, benchMethod.Selector))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sc.name, err)
		}
		byRole, total, unknown := fake.counts()
		if resp.StatusCode != sc.status {
			return nil, fmt.Errorf("%s: the run answered %d, want %d: %s\n%s", sc.name, resp.StatusCode, sc.status, clip(data, 600), svc.logTail())
		}
		if unknown > 0 {
			return nil, fmt.Errorf("%s: %d requests reached the fake model that it could not attribute to a role", sc.name, unknown)
		}
		var out struct {
			Usage struct {
				ModelCalls int `json:"model_calls"`
			} `json:"usage"`
		}
		_ = json.Unmarshal(data, &out)
		calls[sc.name] = total
		rows = append(rows, figure{
			key: "  " + sc.name, value: total, unit: "calls",
			note: fmt.Sprintf("design %d; Python original %s; service reports %d; %s (%s)", sc.design, sc.original, out.Usage.ModelCalls, roleCounts(byRole), sc.how),
		})
	}
	return []figure{{"model_calls", breakdown{values: calls, rows: rows}, "", "requests counted at a fake Gemini server, per scenario:"}}, nil
}

func roleCounts(m map[string]int) string {
	var parts []string
	for _, r := range []string{"reviewer", "writer", "validator", "refiner"} {
		if m[r] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", r, m[r]))
		}
	}
	return strings.Join(parts, ", ")
}
