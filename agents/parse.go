package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
	"strings"
)

// maxObjectStarts bounds how many "{" the scan for top-level objects
// tries, so that a huge answer full of braces costs little.
const maxObjectStarts = 64

// parseReview reads the reviewer's answer (see Mode for where the object
// may sit). The severity is normalized ("high", "High." → HIGH); an
// unknown one is an error.
func parseReview(text string, mode mode) (refactor.Review, error) {
	var raw struct {
		Severity string    `json:"severity"`
		Summary  string    `json:"summary"`
		Issues   issueList `json:"issues"`
	}
	if err := decodeAnswer(text, "severity", mode, &raw); err != nil {
		return refactor.Review{}, err
	}
	sev, ok := normalizeSeverity(raw.Severity)
	if !ok {
		return refactor.Review{}, fmt.Errorf("severity %q is not LOW, MEDIUM or HIGH", raw.Severity)
	}
	r := refactor.Review{Severity: sev, Summary: strings.TrimSpace(raw.Summary), Issues: raw.Issues}
	if r.Summary == "" && len(r.Issues) == 0 {
		return refactor.Review{}, errors.New("the review has neither a summary nor issues")
	}
	return r, nil
}

// parseCandidate reads the writer's or refiner's answer: a JSON object with
// "code" or, on the tolerant path only, that object with the bare quotes of
// its Smalltalk comments escaped (repairQuotes), else the last fenced
// Smalltalk code block. The code is normalized with normalizeCode.
func parseCandidate(text, className string, mode mode) (refactor.Candidate, error) {
	var raw struct {
		Code    string `json:"code"`
		Helpers []struct {
			Code     string `json:"code"`
			Protocol string `json:"protocol"`
		} `json:"helpers"`
		Notes string `json:"notes"`
	}
	err := decodeAnswer(text, "code", mode, &raw)
	if err != nil {
		if mode == constrainedMode {
			return refactor.Candidate{}, err
		}
		// The repair reads flat objects of strings: an answer with helpers
		// (objects with a "protocol") is left to the corrective retry.
		if obj, ok := repairQuotes(text, []string{"code", "notes"}); ok && !strings.Contains(text, `"protocol"`) && hasKey(obj, "code") && json.Unmarshal(obj, &raw) == nil {
			err = nil
		} else if code, ok := fencedCode(stripReasoning(text)); ok {
			raw.Code, raw.Notes, err = code, "", nil
		}
		if err != nil {
			return refactor.Candidate{}, err
		}
	}
	c := refactor.Candidate{Code: normalizeCode(raw.Code, className), Notes: strings.TrimSpace(raw.Notes)}
	if c.Code == "" {
		return refactor.Candidate{}, errors.New(`"code" is empty`)
	}
	for i, h := range raw.Helpers {
		code := normalizeCode(h.Code, className)
		if code == "" {
			return refactor.Candidate{}, fmt.Errorf(`"code" of helpers[%d] is empty`, i)
		}
		c.Helpers = append(c.Helpers, refactor.Helper{Source: code, Protocol: strings.TrimSpace(h.Protocol)})
	}
	return c, nil
}

// parseVerdict reads the validator's answer; only its final answer
// decides, and anything ambiguous is never approval:
//   - reasoning blocks are ignored (an approval only inside <think> is none);
//   - constrained, the whole answer must be the one object;
//   - tolerant, an object that is the whole answer (or alone in a ```json
//     fence) is read as it says; otherwise a NEEDS_IMPROVEMENT object among
//     the answer's top-level objects makes it a rejection (a rejection is
//     never unsafe, and reading it spares a corrective call), and anything
//     else — an approval with prose around it, two objects, a quoted
//     approval — is an error, so the role retries once with a corrective
//     note and then fails the run.
//
// The verdict is normalized ("approved", "Approved.", "needs improvement");
// anything else — "NOT APPROVED", "APPROVED WITH CHANGES" — is an error. A
// NEEDS_IMPROVEMENT verdict must say what to improve.
func parseVerdict(text string, mode mode) (refactor.Verdict, error) {
	s, err := finalAnswer(text)
	if err != nil {
		return refactor.Verdict{}, err
	}
	if mode == constrainedMode {
		obj, err := wholeObject(s)
		if err != nil {
			return refactor.Verdict{}, fmt.Errorf("%w (the answer was constrained to the schema: nothing else may surround the object)", err)
		}
		return verdictFrom(obj)
	}
	if obj, err := wholeOrFenced(s); err == nil {
		return verdictFrom(obj)
	}
	objs := topLevelObjects(s)
	verdicts := 0
	for i := len(objs) - 1; i >= 0; i-- {
		if !hasKey(objs[i].raw, "verdict") {
			continue
		}
		verdicts++
		if v, err := verdictFrom(objs[i].raw); err == nil && !v.Approved() {
			return v, nil
		}
	}
	if verdicts == 0 {
		return refactor.Verdict{}, errors.New(`no JSON object with "verdict" found outside reasoning`)
	}
	return refactor.Verdict{}, fmt.Errorf("ambiguous verdict: an approval counts only when the JSON object is the whole answer, and this answer has %d JSON object(s) with text around them", len(objs))
}

func verdictFrom(obj []byte) (refactor.Verdict, error) {
	if !hasKey(obj, "verdict") {
		return refactor.Verdict{}, errors.New(`the JSON object has no "verdict"`)
	}
	var raw struct {
		Verdict  string    `json:"verdict"`
		Feedback string    `json:"feedback"`
		Issues   issueList `json:"issues"`
	}
	if err := json.Unmarshal(obj, &raw); err != nil {
		return refactor.Verdict{}, fmt.Errorf("the JSON object does not have the expected shape: %w", err)
	}
	vk, ok := normalizeVerdict(raw.Verdict)
	if !ok {
		return refactor.Verdict{}, fmt.Errorf("verdict %q is not APPROVED or NEEDS_IMPROVEMENT", raw.Verdict)
	}
	v := refactor.Verdict{Verdict: vk, Feedback: strings.TrimSpace(raw.Feedback), Issues: raw.Issues}
	if vk == refactor.VerdictNeedsImprovement && v.Feedback == "" && len(v.Issues) == 0 {
		return refactor.Verdict{}, errors.New("a NEEDS_IMPROVEMENT verdict without feedback or issues")
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

func normalizeSeverity(s string) (refactor.Severity, bool) {
	switch refactor.Severity(enumWord(s)) {
	case refactor.SeverityLow:
		return refactor.SeverityLow, true
	case refactor.SeverityMedium, "MODERATE":
		return refactor.SeverityMedium, true
	case refactor.SeverityHigh:
		return refactor.SeverityHigh, true
	}
	return "", false
}

func normalizeVerdict(s string) (refactor.VerdictKind, bool) {
	switch enumWord(s) {
	case string(refactor.VerdictApproved):
		return refactor.VerdictApproved, true
	case string(refactor.VerdictNeedsImprovement), "NEEDS_IMPROVEMENTS":
		return refactor.VerdictNeedsImprovement, true
	}
	return "", false
}

// issueList accepts a list of issue objects or, from weaker models, a list
// of strings (each becomes an Issue's Problem).
type issueList []refactor.Issue

func (l *issueList) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*l = nil
		return nil
	}
	var objs []refactor.Issue
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
		*l = append(*l, refactor.Issue{Problem: s})
	}
	return nil
}

// decodeAnswer decodes the object of an answer that must hold key (see
// answerObject) into dst.
func decodeAnswer(text, key string, mode mode, dst any) error {
	obj, err := answerObject(text, key, mode)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(obj, dst); err != nil {
		return fmt.Errorf("the JSON object does not have the expected shape: %w", err)
	}
	return nil
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

// fencedCode returns the last fenced block that is Smalltalk (or has no
// language) and is not JSON: earlier blocks are drafts or the original.
func fencedCode(text string) (string, bool) {
	blocks := fencedBlocks(normalizeNewlines(text))
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
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
