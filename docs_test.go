package refactor_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocLinksResolve: every relative link of the documentation names a
// file of the repository and, when it carries an anchor into a Markdown
// file, a heading of that file (as GitHub derives anchors from headings).
func TestDocLinksResolve(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, docs, "docs/ holds the documentation")
	files := append([]string{"README.md", "CONTRIBUTING.md", "bench/README.md", "soak/README.md"}, docs...)
	checked := 0
	for _, file := range files {
		links, err := relativeLinks(file)
		require.NoError(t, err)
		for _, link := range links {
			checked++
			assert.NoError(t, checkLink(file, link), "%s", file)
		}
	}
	assert.Greater(t, checked, 20, "the README and docs link to each other")
}

// TestCheckLink holds the checker to broken links of each kind, so that the
// test above can fail.
func TestCheckLink(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	write("docs/a.md", "# A page\n\n## Runs are jobs\n\n## refactorctl — the `client`\n\n## Twice\n\n## Twice\n\n    ## not a heading\n")
	write("code.go", "package x\n")
	from := filepath.Join(dir, "README.md")
	cases := []struct {
		link string
		ok   bool
	}{
		{"docs/a.md", true},
		{"code.go", true},
		{"docs", true},
		{"docs/a.md#runs-are-jobs", true},
		{"docs/a.md#refactorctl--the-client", true},
		{"docs/a.md#twice-1", true},
		{"docs/b.md", false},
		{"docs/a.md#runs-are-job", false},
		{"docs/a.md#twice-2", false},
		{"docs/a.md#not-a-heading", false},
	}
	for _, tc := range cases {
		t.Run(tc.link, func(t *testing.T) {
			err := checkLink(from, tc.link)
			if tc.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}

	write("README.md", "See [a](docs/a.md), `[not](a-link.md)`, [web](https://example.com) and\n\n    [code](block.md)\n\n```\n[fenced](x.md)\n```\n[b](docs/a.md#twice).\n  ```` ```json ```` [c](code.go), [d across\ntwo lines](docs/a.md#twice-1)\n")
	links, err := relativeLinks(from)
	require.NoError(t, err)
	assert.Equal(t, []string{"docs/a.md", "docs/a.md#twice", "code.go", "docs/a.md#twice-1"}, links)
}

var (
	linkPattern     = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	codeSpanPattern = regexp.MustCompile("`[^`]*`")
	schemePattern   = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)
)

// relativeLinks answers the targets of the inline links of a Markdown file
// that point into the repository: not web addresses, not text inside code.
func relativeLinks(file string) ([]string, error) {
	var links []string
	var paragraph []string
	flush := func() {
		text := codeSpanPattern.ReplaceAllString(strings.Join(paragraph, "\n"), "")
		for _, m := range linkPattern.FindAllStringSubmatch(text, -1) {
			if !schemePattern.MatchString(m[1]) {
				links = append(links, m[1])
			}
		}
		paragraph = paragraph[:0]
	}
	err := markdownLines(file, func(line string) {
		if line == "" {
			flush()
			return
		}
		paragraph = append(paragraph, line)
	})
	flush()
	return links, err
}

// checkLink reports whether a link of the file from names an existing file
// and, for an anchor into Markdown, one of its headings.
func checkLink(from, link string) error {
	path, anchor, _ := strings.Cut(link, "#")
	target := from
	if path != "" {
		target = filepath.Join(filepath.Dir(from), filepath.FromSlash(path))
	}
	if _, err := os.Stat(target); err != nil {
		return fmt.Errorf("link %s: %w", link, err)
	}
	if anchor == "" || !strings.HasSuffix(target, ".md") {
		return nil
	}
	anchors, err := headingAnchors(target)
	if err != nil {
		return err
	}
	if !anchors[anchor] {
		return fmt.Errorf("link %s: %s has no heading with anchor #%s", link, target, anchor)
	}
	return nil
}

// headingAnchors answers the anchors GitHub gives a file's headings:
// lower case, punctuation dropped, spaces as hyphens, a repeated anchor
// numbered from 1.
func headingAnchors(file string) (map[string]bool, error) {
	anchors := map[string]bool{}
	seen := map[string]int{}
	err := markdownLines(file, func(line string) {
		text, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !strings.HasPrefix(line, "#") || !ok {
			return
		}
		text = linkPattern.ReplaceAllStringFunc(text, func(s string) string { return s[1:strings.Index(s, "](")] })
		var slug strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(text)) {
			switch {
			case r == ' ':
				slug.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				slug.WriteRune(r)
			}
		}
		anchor := slug.String()
		if n := seen[anchor]; n > 0 {
			seen[anchor]++
			anchor = fmt.Sprintf("%s-%d", anchor, n)
		} else {
			seen[anchor] = 1
		}
		anchors[anchor] = true
	})
	return anchors, err
}

// markdownLines calls each for every line of a Markdown file outside code
// blocks (fenced, or indented by four spaces after a blank line), and with
// "" where a paragraph ends: at a blank line or a code block.
func markdownLines(file string, each func(line string)) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	fenced, indented, blank := false, false, true
	for scanner.Scan() {
		line := scanner.Text()
		switch {
		case isFence(line):
			fenced = !fenced
			each("")
		case fenced:
		case strings.TrimSpace(line) == "":
			blank = true
			each("")
			continue
		case strings.HasPrefix(line, "    ") && (blank || indented):
			indented = true
		default:
			indented = false
			each(line)
		}
		blank = false
	}
	if err := scanner.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	return nil
}

// isFence reports whether a line opens or closes a fenced code block: up
// to three spaces, three backticks or more, and no backtick after them
// (a line that starts with a code span of backticks is text).
func isFence(line string) bool {
	text := strings.TrimLeft(line, " ")
	return len(line)-len(text) <= 3 && strings.HasPrefix(text, "```") && !strings.Contains(strings.TrimLeft(text, "`"), "`")
}
