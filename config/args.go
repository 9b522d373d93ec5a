package config

import (
	"errors"
	"fmt"
	"strings"
)

// splitArgs splits a command line like a POSIX shell would, without any
// expansion: blanks separate words; single quotes keep everything literally;
// double quotes keep blanks and allow \" and \\; a backslash outside quotes
// escapes the next character.
func splitArgs(s string) ([]string, error) {
	var (
		args    []string
		cur     strings.Builder
		inWord  bool
		quote   rune
		escaped bool
	)
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unterminated quote")
	}
	if escaped {
		return nil, errors.New("trailing backslash")
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args, nil
}

// ParseDotenv reads KEY=VALUE lines (# comments, optional `export `, values
// optionally quoted) as found in a .env file. As python-dotenv reads them (the
// original's .env), a blank and # after a value start a comment.
func ParseDotenv(data string) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		key, val, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return nil, fmt.Errorf(".env line %d: expected KEY=VALUE", i+1)
		}
		out[key] = dotenvValue(strings.TrimSpace(val))
	}
	return out, nil
}

// dotenvValue unquotes a quoted value and drops a comment after the value.
func dotenvValue(val string) string {
	if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') {
		if end := strings.IndexByte(val[1:], val[0]) + 1; end > 0 {
			if rest := strings.TrimSpace(val[end+1:]); rest == "" || strings.HasPrefix(rest, "#") {
				return val[1:end]
			}
		}
	}
	if i := strings.Index(val, " #"); i >= 0 {
		val = val[:i]
	}
	if i := strings.Index(val, "\t#"); i >= 0 {
		val = val[:i]
	}
	return strings.TrimSpace(val)
}
