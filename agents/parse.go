package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxObjectStarts bounds how many "{" the prose scan tries, so that a huge
// answer full of braces costs little.
const maxObjectStarts = 64

// ParseReview reads the reviewer's answer: bare JSON, fenced JSON or the
// first suitable JSON object in prose. The severity is normalized
// ("high", "High." → HIGH); an unknown one is an error.
func ParseReview(text string) (Review, error) {
	var raw struct {
		Severity string    `json:"severity"`
		Summary  string    `json:"summary"`
		Issues   issueList `json:"issues"`
	}
	if err := decodeAnswer(text, "severity", &raw); err != nil {
		return Review{}, err
	}
	sev, ok := normalizeSeverity(raw.Severity)
	if !ok {
		return Review{}, fmt.Errorf("severity %q is not LOW, MEDIUM or HIGH", raw.Severity)
	}
	r := Review{Severity: sev, Summary: strings.TrimSpace(raw.Summary), Issues: raw.Issues}
	if r.Summary == "" && len(r.Issues) == 0 {
		return Review{}, errors.New("the review has neither a summary nor issues")
	}
	return r, nil
}

// ParseCandidate reads the writer's or refiner's answer: a JSON object with
// "code" (bare, fenced or in prose), or else the first fenced Smalltalk code
// block. The code is normalized with NormalizeCode.
func ParseCandidate(text, className string) (Candidate, error) {
	var raw struct {
		Code  string `json:"code"`
		Notes string `json:"notes"`
	}
	err := decodeAnswer(text, "code", &raw)
	if err != nil {
		code, ok := fencedCode(text)
		if !ok {
			return Candidate{}, err
		}
		raw.Code, raw.Notes = code, ""
	}
	c := Candidate{Code: NormalizeCode(raw.Code, className), Notes: strings.TrimSpace(raw.Notes)}
	if c.Code == "" {
		return Candidate{}, errors.New(`"code" is empty`)
	}
	return c, nil
}

// ParseVerdict reads the validator's answer. The verdict is normalized
// ("approved", "Approved.", "needs improvement" are accepted); anything else
// — "NOT APPROVED", "APPROVED WITH CHANGES" — is an error, never approval.
// A NEEDS_IMPROVEMENT verdict must say what to improve.
func ParseVerdict(text string) (Verdict, error) {
	var raw struct {
		Verdict  string    `json:"verdict"`
		Feedback string    `json:"feedback"`
		Issues   issueList `json:"issues"`
	}
	if err := decodeAnswer(text, "verdict", &raw); err != nil {
		return Verdict{}, err
	}
	vk, ok := normalizeVerdict(raw.Verdict)
	if !ok {
		return Verdict{}, fmt.Errorf("verdict %q is not APPROVED or NEEDS_IMPROVEMENT", raw.Verdict)
	}
	v := Verdict{Verdict: vk, Feedback: strings.TrimSpace(raw.Feedback), Issues: raw.Issues}
	if vk == VerdictNeedsImprovement && v.Feedback == "" && len(v.Issues) == 0 {
		return Verdict{}, errors.New("a NEEDS_IMPROVEMENT verdict without feedback or issues")
	}
	return v, nil
}

// enumWord upper-cases s, drops surrounding blanks, quotes and trailing
// punctuation, and joins words with "_".
func enumWord(s string) string {
	s = strings.Trim(strings.TrimSpace(s), `"'*.!`)
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "-", " ")), "_")
	return strings.ToUpper(s)
}

func normalizeSeverity(s string) (Severity, bool) {
	switch Severity(enumWord(s)) {
	case SeverityLow:
		return SeverityLow, true
	case SeverityMedium, "MODERATE":
		return SeverityMedium, true
	case SeverityHigh:
		return SeverityHigh, true
	}
	return "", false
}

func normalizeVerdict(s string) (VerdictKind, bool) {
	switch enumWord(s) {
	case string(VerdictApproved):
		return VerdictApproved, true
	case string(VerdictNeedsImprovement), "NEEDS_IMPROVEMENTS":
		return VerdictNeedsImprovement, true
	}
	return "", false
}

// issueList accepts a list of issue objects or, from weaker models, a list
// of strings (each becomes an Issue's Problem).
type issueList []Issue

func (l *issueList) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*l = nil
		return nil
	}
	var objs []Issue
	if err := json.Unmarshal(b, &objs); err == nil {
		*l = objs
		return nil
	}
	var strs []string
	if err := json.Unmarshal(b, &strs); err != nil {
		return errors.New(`"issues" is neither a list of objects nor a list of strings`)
	}
	*l = make(issueList, 0, len(strs))
	for _, s := range strs {
		*l = append(*l, Issue{Problem: s})
	}
	return nil
}

// decodeAnswer finds the JSON object in text that has the key and decodes
// it into dst. It tries the whole text, then fenced blocks, then each "{"
// in the prose; each candidate also with raw control characters inside
// strings escaped (a common slip: literal newlines in "code").
func decodeAnswer(text, key string, dst any) error {
	text = strings.TrimSpace(normalizeNewlines(text))
	if text == "" {
		return errors.New("the answer is empty")
	}
	var lastErr error
	for _, cand := range jsonCandidates(text) {
		obj, err := objectWithKey(cand, key)
		if err != nil {
			lastErr = err
			continue
		}
		if err := json.Unmarshal(obj, dst); err != nil {
			return fmt.Errorf("the JSON object does not have the expected shape: %w", err)
		}
		return nil
	}
	if lastErr != nil {
		return fmt.Errorf("no JSON object with %q found: %w", key, lastErr)
	}
	return fmt.Errorf("no JSON object with %q found", key)
}

// jsonCandidates lists the places a JSON object may sit, most likely first.
func jsonCandidates(text string) []string {
	cands := []string{text}
	for _, b := range fencedBlocks(text) {
		cands = append(cands, b.body)
	}
	starts := 0
	for i := 0; i < len(text) && starts < maxObjectStarts; i++ {
		if text[i] == '{' {
			cands = append(cands, text[i:])
			starts++
		}
	}
	return cands
}

// objectWithKey decodes the first JSON value of s (trailing text allowed)
// and returns it if it is an object holding key.
func objectWithKey(s, key string) (json.RawMessage, error) {
	obj, err := firstObject(s)
	if err != nil {
		if repaired := escapeControlsInStrings(s); repaired != s {
			obj, err = firstObject(repaired)
		}
	}
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(obj, &fields); err != nil {
		return nil, err
	}
	if _, ok := fields[key]; !ok {
		return nil, fmt.Errorf("the JSON object has no %q", key)
	}
	return obj, nil
}

func firstObject(s string) (json.RawMessage, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return nil, errors.New("not a JSON object")
	}
	var obj json.RawMessage
	if err := json.NewDecoder(strings.NewReader(s)).Decode(&obj); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return obj, nil
}

// escapeControlsInStrings escapes raw newlines, tabs and carriage returns
// inside JSON string literals, leaving everything else alone.
func escapeControlsInStrings(s string) string {
	var b strings.Builder
	inString, escaped := false, false
	for _, r := range s {
		switch {
		case escaped:
			escaped = false
		case inString && r == '\\':
			escaped = true
		case r == '"':
			inString = !inString
		case inString && r == '\n':
			b.WriteString(`\n`)
			continue
		case inString && r == '\t':
			b.WriteString(`\t`)
			continue
		case inString && r == '\r':
			b.WriteString(`\r`)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fenced is one ``` block: its info string (language) and body.
type fenced struct {
	lang string
	body string
}

// fencedBlocks returns the ``` blocks of text in order. An unclosed last
// block runs to the end (a cut-off answer still shows its start).
func fencedBlocks(text string) []fenced {
	var blocks []fenced
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		open := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(open, "```") {
			continue
		}
		lang := strings.ToLower(strings.TrimSpace(strings.TrimLeft(open, "`")))
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
			j++
		}
		blocks = append(blocks, fenced{lang: lang, body: strings.Join(lines[i+1:min(j, len(lines))], "\n")})
		i = j
	}
	return blocks
}

// fencedCode returns the first fenced block that is Smalltalk (or has no
// language) and is not JSON.
func fencedCode(text string) (string, bool) {
	for _, b := range fencedBlocks(normalizeNewlines(text)) {
		switch b.lang {
		case "smalltalk", "st", "pharo", "":
		default:
			continue
		}
		body := strings.TrimSpace(b.body)
		if body == "" || strings.HasPrefix(body, "{") {
			continue
		}
		return body, true
	}
	return "", false
}
