package agents

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// Models that answer without a schema often write a method's Smalltalk
// comments ("Answer the sum") into the JSON string of "code" without
// escaping the quotes, which makes the object invalid JSON. repairQuotes
// mends exactly that, conservatively, and only on the tolerant path (a
// constrained answer is valid JSON by construction, and a verdict is never
// repaired: only a verdict read as the model wrote it counts, see
// docs/models.md, "Model answers").
//
// The repaired object must consist only of string values under the
// expected keys, each at most once. A value's closing quote is the one
// followed by `, "<another expected key>":` — it must be the only quote
// followed by `, "<any key>":` — or, for the last value, the last quote
// followed by the `}` that ends the answer (or its closing fence). Every other unescaped quote
// inside the value is escaped; nothing else is changed. Anything else is
// left unrepaired.

var (
	nextKeyRE = regexp.MustCompile(`^\s*,\s*"([A-Za-z_]+)"\s*:`)
	closeRE   = regexp.MustCompile("^\\s*}\\s*(?:```\\s*)?$")
	keyRE     = regexp.MustCompile(`^\s*"([A-Za-z_]+)"\s*:\s*"`)
)

// repairQuotes finds the last object of text that opens with one of keys
// and returns it with the bare quotes inside its string values escaped.
func repairQuotes(text string, keys []string) (json.RawMessage, bool) {
	s := normalizeNewlines(stripReasoning(text))
	start := lastObjectOpening(s, keys)
	if start < 0 {
		return nil, false
	}
	repaired, ok := repairObject(s[start:], keys)
	if !ok {
		return nil, false
	}
	obj, err := decodeObject(repaired)
	if err != nil {
		return nil, false
	}
	return obj, true
}

// lastObjectOpening is the index of the last "{" directly followed by
// `"key":` for one of keys.
func lastObjectOpening(s string, keys []string) int {
	for i := strings.LastIndexByte(s, '{'); i >= 0; i = strings.LastIndexByte(s[:i], '{') {
		if m := keyRE.FindStringSubmatch(s[i+1:]); m != nil && slices.Contains(keys, m[1]) {
			return i
		}
	}
	return -1
}

// repairObject rebuilds the object s starts with (s[0] is '{').
func repairObject(s string, keys []string) (string, bool) {
	var b strings.Builder
	b.WriteByte('{')
	seen := map[string]bool{}
	rest := s[1:]
	for {
		m := keyRE.FindStringSubmatchIndex(rest)
		if m == nil {
			return "", false
		}
		key := rest[m[2]:m[3]]
		if !slices.Contains(keys, key) || seen[key] {
			return "", false
		}
		seen[key] = true
		value := rest[m[1]:] // after the opening quote
		end, last, ok := valueEnd(value, keys, seen)
		if !ok {
			return "", false
		}
		b.WriteString(`"` + key + `": "` + escapeBareQuotes(value[:end]) + `"`)
		if last {
			b.WriteByte('}')
			return b.String(), true
		}
		b.WriteByte(',')
		rest = value[end+1:]
		rest = rest[strings.IndexByte(rest, ',')+1:]
	}
}

// valueEnd finds the closing quote of a string value (value starts just
// after its opening quote): the only quote followed by another expected
// key, else the last quote followed by the end of the object and the
// answer. last reports the latter.
func valueEnd(value string, keys []string, seen map[string]bool) (end int, last bool, ok bool) {
	var toKey []int
	closing := -1
	for i := 0; i < len(value); i++ {
		switch value[i] {
		case '\\':
			i++ // an escaped character, quotes included, stays as written
			continue
		case '"':
		default:
			continue
		}
		after := value[i+1:]
		if m := nextKeyRE.FindStringSubmatch(after); m != nil {
			if !slices.Contains(keys, m[1]) || seen[m[1]] {
				return 0, false, false // another key, or one twice: not a shape to guess at
			}
			toKey = append(toKey, i)
		} else if closeRE.MatchString(after) {
			closing = i
		}
	}
	switch {
	case len(toKey) == 1:
		return toKey[0], false, true
	case len(toKey) == 0 && closing >= 0:
		return closing, true, true
	}
	return 0, false, false
}

// escapeBareQuotes escapes the quotes of s that no backslash escapes.
func escapeBareQuotes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
			continue
		case '"':
			b.WriteString(`\"`)
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
