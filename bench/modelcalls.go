package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// callScenario is one run whose model calls are counted.
type callScenario struct {
	name     string
	answers  testenv.Answers
	status   int // the answer the run must get, else the count means nothing
	design   int // what docs/design.md ("One run") says the count is
	original string
	how      string
}

func callScenarios() []callScenario {
	review, approved, code := testenv.Review(), testenv.Approved(), testenv.Code
	const needsWorkFeedback = "Name the roles better."
	needsWork := testenv.NeedsWork(needsWorkFeedback)
	v3 := "sum: left with: right\n\n\t^ left + right"
	broken := "sum: a with: b\n\t^ (a + b"
	return []callScenario{
		{
			name:    "approved_round_1",
			answers: testenv.ApprovedInRoundOne(sumVersions[0]),
			status:  http.StatusOK, design: 3,
			original: "≥5 agent turns", how: "review, write, validate",
		},
		{
			name:    "approved_round_2",
			answers: testenv.ApprovedInRoundTwo(sumVersions[1], needsWorkFeedback, v3),
			status:  http.StatusOK, design: 5,
			original: "≥7 agent turns", how: "review, write, validate, refine, validate",
		},
		{
			name:    "unparseable_then_approved",
			answers: testenv.Answers{"reviewer": {review}, "writer": {code(broken)}, "validator": {approved}, "refiner": {code(sumVersions[0])}},
			status:  http.StatusOK, design: 4,
			original: "n/a", how: "review, write (does not parse: no validator call), refine, validate",
		},
		{
			name:    "never_approved",
			answers: testenv.Answers{"reviewer": {review}, "writer": {code(sumVersions[1])}, "validator": {needsWork}, "refiner": {code(v3)}},
			status:  http.StatusUnprocessableEntity, design: 7,
			original: "≥8 agent turns", how: "MAX_VALIDATION_ITERATIONS=3: review, write, 3 validations, 2 refinements; 422 not_approved",
		},
	}
}

// modelCallsSuite runs each scenario through refactord on MODEL_PROVIDER=
// gemini against testenv's fake Gemini and counts the requests that reach
// it; the fake tells the roles apart by the header each request names its
// role in.
func modelCallsSuite(e env) ([]figure, error) {
	fake := &testenv.FakeGemini{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	svc, err := startService(e, "model-calls", []string{
		"MODEL_PROVIDER=gemini", "GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL=" + srv.URL,
		"MAX_VALIDATION_ITERATIONS=3", "MODEL_MAX_RETRIES=0",
	})
	if err != nil {
		return nil, err
	}
	defer svc.stop()
	calls := map[string]int{}
	var rows []figure
	client := &http.Client{Timeout: time.Minute}
	for _, sc := range callScenarios() {
		fake.Reset()
		fake.ScriptAll(sc.answers)
		resp, data, err := post(e.ctx, client, svc.URL+"/api/v1/refactor", refactorBody(benchMethod.Class, benchMethod.Selector))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sc.name, err)
		}
		byRole, total, unknown := map[refactor.Role]int{}, fake.Total(), fake.Count("")
		for _, role := range refactor.AllRoles() {
			byRole[role] = fake.Count(role)
		}
		var answer map[string]any
		_ = json.Unmarshal(data, &answer)
		if status := testenv.AnsweredStatus(resp, answer); status != sc.status {
			return nil, fmt.Errorf("%s: the run answered %d, want %d: %s\n%s", sc.name, status, sc.status, clip(data, 600), svc.logTail())
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

func roleCounts(m map[refactor.Role]int) string {
	var parts []string
	for _, r := range refactor.AllRoles() {
		if m[r] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", r, m[r]))
		}
	}
	return strings.Join(parts, ", ")
}
