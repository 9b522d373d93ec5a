package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// mode says how much of an answer the JSON object must be.
type mode int

const (
	// tolerant is for answers no schema constrained (providers without
	// structured output, scripted text): the object may sit in prose or a
	// fence, and only the last top-level JSON object of the answer counts —
	// never one inside a JSON string, inside a fence of other data
	// (```smalltalk), or an earlier draft.
	tolerant mode = iota
	// constrainedMode is for answers the provider produced under the request's
	// schema (Gemini responseSchema, OpenAI json_schema): after reasoning
	// blocks, the whole answer must be exactly one object.
	constrainedMode
)

// modeOf answers how resp's text must be read.
func modeOf(resp Response) mode {
	if resp.Constrained {
		return constrainedMode
	}
	return tolerant
}

// reasoningTags are the tags reasoning models (behind OpenAI-compatible
// servers: DeepSeek R1, Qwen3, QwQ, …) wrap their drafts in.
func reasoningTags() []string {
	return []string{"think", "thinking", "thought", "reasoning", "reflection"}
}

// stripReasoning removes what a model thought before answering, so that
// only its final answer is parsed: <think>…</think> blocks (and the
// <thinking>, <thought>, <reasoning>, <reflection> variants) that start a
// line; an unclosed such block, which runs to the end; everything before an
// orphan closing tag (templates that open the block in the prompt); and the
// analysis channel of the harmony format (only the final channel is kept).
func stripReasoning(s string) string {
	s = harmonyFinal(s)
	lower := asciiLower(s)
	for _, tag := range reasoningTags() {
		open, closing := "<"+tag+">", "</"+tag+">"
		ci := strings.Index(lower, closing)
		if oi := strings.Index(lower, open); ci >= 0 && (oi < 0 || oi > ci) {
			s, lower = s[ci+len(closing):], lower[ci+len(closing):]
		}
	}
	for {
		start, tag := firstBlockStart(lower)
		if start < 0 {
			return s
		}
		closing := "</" + tag + ">"
		end := len(s)
		if ci := strings.Index(lower[start:], closing); ci >= 0 {
			end = start + ci + len(closing)
		}
		s, lower = s[:start]+s[end:], lower[:start]+lower[end:]
	}
}

// firstBlockStart finds the earliest reasoning opening tag that starts a
// line (after blanks): inside a JSON string or mid-sentence a tag is text.
func firstBlockStart(lower string) (int, string) {
	best, bestTag := -1, ""
	for _, tag := range reasoningTags() {
		open := "<" + tag + ">"
		for from := 0; ; {
			i := strings.Index(lower[from:], open)
			if i < 0 {
				break
			}
			i += from
			if startsLine(lower, i) {
				if best < 0 || i < best {
					best, bestTag = i, tag
				}
				break
			}
			from = i + len(open)
		}
	}
	return best, bestTag
}

func startsLine(s string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch s[j] {
		case ' ', '\t':
			continue
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// harmonyFinal keeps the final channel of a harmony-format answer
// (<|channel|>final<|message|>…); an answer with channels but no final one
// is all analysis.
func harmonyFinal(s string) string {
	const channel, final = "<|channel|>", "<|channel|>final<|message|>"
	if !strings.Contains(s, channel) {
		return s
	}
	i := strings.LastIndex(s, final)
	if i < 0 {
		return ""
	}
	s = s[i+len(final):]
	for _, end := range []string{"<|end|>", "<|return|>", "<|call|>"} {
		if j := strings.Index(s, end); j >= 0 {
			s = s[:j]
		}
	}
	return s
}

// asciiLower lower-cases ASCII letters only, so that offsets stay those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// finalAnswer is the text that decides: reasoning removed, line endings
// normalized, blanks trimmed.
func finalAnswer(text string) (string, error) {
	s := strings.TrimSpace(stripReasoning(normalizeNewlines(text)))
	if s == "" {
		if strings.TrimSpace(text) != "" {
			return "", errors.New("the answer holds only reasoning, no final answer")
		}
		return "", errors.New("the answer is empty")
	}
	return s, nil
}

// wholeObject decodes s when it is exactly one JSON object (raw control
// characters inside strings are escaped first if needed).
func wholeObject(s string) (json.RawMessage, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || objectEnd(s) != len(s) {
		return nil, errors.New("the answer is not exactly one JSON object")
	}
	return decodeObject(s)
}

// wholeOrFenced accepts one JSON object that is the whole answer, or a
// single ```json (or bare ```) fence around it and nothing else.
func wholeOrFenced(s string) (json.RawMessage, error) {
	if obj, err := wholeObject(s); err == nil {
		return obj, nil
	}
	blocks := fencedBlocks(s)
	if len(blocks) != 1 || !jsonFence(blocks[0].lang) {
		return nil, errors.New("the answer is not exactly one JSON object")
	}
	lines := strings.Split(s, "\n")
	first, last := strings.TrimSpace(lines[0]), strings.TrimSpace(lines[len(lines)-1])
	if !strings.HasPrefix(first, "```") || last != "```" || len(lines) < 3 {
		return nil, errors.New("there is text around the fenced JSON object")
	}
	return wholeObject(blocks[0].body)
}

func jsonFence(lang string) bool {
	switch lang {
	case "", "json", "jsonc", "json5":
		return true
	}
	return false
}

// decodeObject decodes one complete JSON object text, repairing raw
// control characters inside strings (a common slip: literal newlines in
// "code"), and refuses keys that appear twice at the top level (also in
// another case: encoding/json matches field names case-insensitively, so
// {"verdict": "NEEDS_IMPROVEMENT", "Verdict": "APPROVED"} would approve).
func decodeObject(s string) (json.RawMessage, error) {
	if !json.Valid([]byte(s)) {
		repaired := escapeControlsInStrings(s)
		if !json.Valid([]byte(repaired)) {
			var probe json.RawMessage
			err := json.Unmarshal([]byte(s), &probe)
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		s = repaired
	}
	if key, dup := duplicateKey(s); dup {
		return nil, fmt.Errorf("the JSON object has the key %q more than once", key)
	}
	return json.RawMessage(s), nil
}

// duplicateKey reports a top-level key that appears twice, ignoring case.
func duplicateKey(obj string) (string, bool) {
	dec := json.NewDecoder(strings.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		key, _ := t.(string)
		folded := foldKey(key)
		if seen[folded] {
			return key, true
		}
		seen[folded] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// foldKey maps every rune to the smallest of its simple case folds, so that
// two keys encoding/json would match to one field (it folds like
// strings.EqualFold: "K" and the Kelvin sign alike) get the same key.
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// objectEnd returns the index just past the '}' that closes the '{' at
// s[0], following JSON strings (escapes included), or -1.
func objectEnd(s string) int {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				if c == '}' {
					return i + 1
				}
				return -1
			}
			if depth < 0 {
				return -1
			}
		}
	}
	return -1
}

// topObject is one JSON object found at the top level of an answer.
type topObject struct {
	start, end int
	raw        json.RawMessage
}

// topLevelObjects lists the JSON objects of an answer in order: each
// object found is skipped whole, so objects inside it (inside its strings,
// too) do not count, and nothing inside a fence of other data (```smalltalk,
// ```text) counts. At most maxObjectStarts "{" are tried.
func topLevelObjects(s string) []topObject {
	masked := maskForeignFences(s)
	var out []topObject
	for i, tries := 0, 0; i < len(masked) && tries < maxObjectStarts; {
		j := strings.IndexByte(masked[i:], '{')
		if j < 0 {
			break
		}
		i += j
		tries++
		if end := objectEnd(masked[i:]); end > 0 {
			if raw, err := decodeObject(masked[i : i+end]); err == nil {
				out = append(out, topObject{start: i, end: i + end, raw: raw})
				i += end
				continue
			}
		}
		i++
	}
	return out
}

// maskForeignFences blanks out fenced blocks whose language is not JSON,
// keeping offsets and line breaks.
func maskForeignFences(s string) string {
	lines := strings.SplitAfter(s, "\n")
	inForeign, inFence := false, false
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		isFence := strings.HasPrefix(trimmed, "```")
		switch {
		case isFence && !inFence:
			inFence = true
			inForeign = !jsonFence(strings.ToLower(strings.TrimSpace(strings.TrimLeft(trimmed, "`"))))
			if inForeign {
				lines[i] = blank(line)
			}
		case isFence && inFence:
			if inForeign {
				lines[i] = blank(line)
			}
			inFence, inForeign = false, false
		case inForeign:
			lines[i] = blank(line)
		}
	}
	return strings.Join(lines, "")
}

func blank(line string) string {
	b := []byte(line)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// hasKey reports whether obj has key at its top level, exactly.
func hasKey(obj json.RawMessage, key string) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(obj, &fields) != nil {
		return false
	}
	_, ok := fields[key]
	return ok
}

// answerObject finds the object of an answer that must hold key: the whole
// answer when constrained, else the last top-level JSON object.
func answerObject(text, key string, mode mode) (json.RawMessage, error) {
	s, err := finalAnswer(text)
	if err != nil {
		return nil, err
	}
	var obj json.RawMessage
	if mode == constrainedMode {
		if obj, err = wholeObject(s); err != nil {
			return nil, fmt.Errorf("%w (the answer was constrained to the schema: nothing else may surround the object)", err)
		}
	} else {
		objs := topLevelObjects(s)
		if len(objs) == 0 {
			return nil, fmt.Errorf("no JSON object with %q found", key)
		}
		obj = objs[len(objs)-1].raw
	}
	if !hasKey(obj, key) {
		return nil, fmt.Errorf("the final JSON object of the answer has no %q", key)
	}
	return obj, nil
}
