package refactor_test

import (
	"bufio"
	"fmt"
	"os"
	"path"
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
	files := docPages(t, ".")
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

// knownBrokenPaths are repository paths that pages kept by other people
// write in code spans and that do not exist, by page and path as the
// failure names them. Each is a page to mend, not a path to keep: once the
// page is mended the test fails until the entry is removed here, and the
// list is meant to be empty.
var knownBrokenPaths = map[string]string{
	// page: path → why it is listed
}

// TestDocPathsExist: every repository path the documentation writes in a
// code span (`pipeline/release.go`, `cmd/refactord`, `store/migrations/`)
// names a file or folder of the repository, so that a file that moves or
// goes shows here rather than to a reader. What counts as a repository
// path, and what not (addresses, globs, placeholders, variables, paths
// outside the repository or made by a build or a run), is repoPath's.
func TestDocPathsExist(t *testing.T) {
	pages := docPages(t, ".")
	paths, err := docPaths(".", pages)
	require.NoError(t, err)
	assert.Greater(t, len(paths), 50, "the pages name the repository's files")
	listed := map[string]bool{}
	for _, p := range paths {
		key := p.page + ": " + p.path
		if err := p.check("."); err != nil {
			if _, ok := knownBrokenPaths[key]; ok {
				listed[key] = true
				continue
			}
			t.Errorf("%s:%d: %v", p.page, p.line, err)
		}
	}
	for key := range knownBrokenPaths {
		if !listed[key] {
			t.Errorf("knownBrokenPaths lists %q, which no page writes as a missing path any more: remove the entry", key)
		}
	}
}

// TestDocPathChecker holds the path checker to what it must find and what
// it must leave alone, so that the test above can fail.
func TestDocPathChecker(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	write(".gitignore", "/bin/\n/.data/\n*.test\n")
	write("pipeline/release.go", "package pipeline\n")
	write("pharosim/interp/sunit.go", "package interp\n")
	write("pharosim/interp/kernel/TestCase.class.st", "")
	write("store/migrations/sqlite/1.sql", "")
	write("docs/a.md", "")
	write("docs/ops.md", "")
	write("bench/README.md", "`../docs/a.md`, `../docs/gone.md`, `floor/x.go`\n")
	write("README.md", strings.Join([]string{
		"Found: `pipeline/release.go`, `pipeline/release.go:42`, `./pipeline/release.go`,",
		"`store/migrations/`, `store/migrations/sqlite`, `docs/a.md`.",
		"",
		"| SUnit | `pharosim/interp/sunit.go`, `kernel/TestCase.class.st` |",
		"",
		"Missing: `pipeline/gone.go`, `store/sqlite`, `kernel/Gone.class.st`, `src/X.class.st`.",
		"",
		"A span across",
		"lines: `x` then `pipeline/also-gone.go`.",
		"",
		"Left alone: `https://example.com/a.go`, `postgres://…`, `kernel/*.st`,",
		"`prompts/*.md`, `<pharo>/src/X.class.st`, `DATA_DIR=/tmp/x.json`,",
		"`/tmp/x.go`, `../shared/x.go`, `bin/pharo-sim`, `.data/image/src/A.class.st`,",
		"`text/event-stream`, `math/big`, `go test ./cmd/...`, `release.go`,",
		"`github.com/a/b/c.go`, `WaitFor(\"/ready\")`, `$DATA_DIR/image`, `cmd/...`.",
		"",
		"    `pipeline/in-a-code-block.go`",
		"",
	}, "\n"))
	paths, err := docPaths(dir, []string{filepath.Join(dir, "README.md"), filepath.Join(dir, "bench/README.md")})
	require.NoError(t, err)
	var found, missing []string
	for _, p := range paths {
		if p.check(dir) == nil {
			found = append(found, p.path)
		} else {
			missing = append(missing, fmt.Sprintf("%d %s", p.line, p.path))
		}
	}
	assert.Equal(t, []string{
		"pipeline/release.go", "pipeline/release.go:42", "./pipeline/release.go", "store/migrations/",
		"store/migrations/sqlite", "docs/a.md", "pharosim/interp/sunit.go", "kernel/TestCase.class.st",
		"../docs/a.md",
	}, found)
	assert.Equal(t, []string{
		"6 pipeline/gone.go", "6 store/sqlite", "6 kernel/Gone.class.st", "6 src/X.class.st",
		"9 pipeline/also-gone.go", "1 ../docs/gone.md", "1 floor/x.go",
	}, missing)
}

// docPages are the Markdown pages held to the repository: the READMEs of
// every folder, CONTRIBUTING.md and docs/*.md.
func docPages(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, docs, "docs/ holds the documentation")
	pages := []string{filepath.Join(root, "CONTRIBUTING.md")}
	skip := ignoredRoots(root)
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || name == "testdata" || skip[name] && filepath.Dir(path) == root) {
			return filepath.SkipDir
		}
		if !d.IsDir() && name == "README.md" {
			pages = append(pages, path)
		}
		return nil
	})
	require.NoError(t, err)
	return append(pages, docs...)
}

// docPath is a repository path a page writes in a code span.
type docPath struct {
	page string
	line int
	path string // as written
	// bases are the folders the path may be relative to besides the
	// repository's root: the page's own folder, and the folder of each
	// path written before it on the same line (`pharosim/interp/sunit.go`,
	// `kernel/TestCase.class.st`).
	bases []string
}

// check reports whether the path names a file or folder under root.
func (p docPath) check(root string) error {
	rel := repoRelative(p.path)
	for _, base := range append([]string{""}, p.bases...) {
		if _, err := os.Stat(filepath.Join(root, base, filepath.FromSlash(rel))); err == nil {
			return nil
		}
	}
	return fmt.Errorf("`%s` names no file or folder of the repository", p.path)
}

// repoRelative is a path as written, without its ./ and its :line.
func repoRelative(written string) string {
	return strings.TrimPrefix(lineSuffix.ReplaceAllString(written, ""), "./")
}

// docPaths answers the repository paths the pages write in code spans,
// outside code blocks.
func docPaths(root string, pages []string) ([]docPath, error) {
	top, ignored := topFolders(root), ignoredRoots(root)
	var out []docPath
	for _, page := range pages {
		rel, err := filepath.Rel(root, page)
		if err != nil {
			return nil, err
		}
		rel = filepath.ToSlash(rel)
		pageDir := path.Dir(rel)
		type numbered struct {
			n    int
			text string
		}
		var paragraph []numbered
		flush := func() {
			if len(paragraph) == 0 {
				return
			}
			texts := make([]string, len(paragraph))
			for i, l := range paragraph {
				texts[i] = l.text
			}
			text := strings.Join(texts, "\n")
			lineBases := map[int][]string{}
			for _, loc := range codeSpanPattern.FindAllStringIndex(text, -1) {
				written := strings.TrimSpace(text[loc[0]+1 : loc[1]-1])
				n := paragraph[strings.Count(text[:loc[0]], "\n")].n
				p, ok := repoPath(written, pageDir, top, ignored)
				if !ok {
					continue
				}
				bases := append([]string{}, lineBases[n]...)
				if pageDir != "." {
					bases = append(bases, pageDir)
				}
				out = append(out, docPath{page: rel, line: n, path: written, bases: bases})
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
					lineBases[n] = append(lineBases[n], path.Dir(strings.TrimSuffix(p, "/")))
				}
			}
			paragraph = paragraph[:0]
		}
		err = markdownLinesAt(page, func(n int, line string) {
			if line == "" {
				flush()
				return
			}
			paragraph = append(paragraph, numbered{n, line})
		})
		flush()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pathExtensions are the endings that make a span with a slash a file path.
var pathExtensions = map[string]bool{
	".go": true, ".md": true, ".st": true, ".yaml": true, ".yml": true, ".json": true,
	".sql": true, ".sh": true, ".txt": true, ".gz": true,
}

var lineSuffix = regexp.MustCompile(`:[0-9]+(-[0-9]+)?$`)

// repoPath reports whether a code span's text is a path into the
// repository, and answers it relative to the root. It is one when it holds
// a slash and either ends in a known extension or starts with a folder of
// the repository's root. It is not when it is an address (a scheme),
// absolute, a glob or a placeholder (`*`, `<…>`, `…`), a variable or a
// value (`=`, `$`), code or a command (blanks, quotes, parentheses), a
// package pattern (`./...`), above the root, or under a folder a build or
// a run makes (a folder .gitignore names at the root: `bin/`, `.data/`),
// or a module path (`github.com/…`).
func repoPath(written, pageDir string, top, ignored map[string]bool) (string, bool) {
	if !strings.Contains(written, "/") || strings.ContainsAny(written, " \t\n*?[]{}<>$=\"'()@,;|&!#%~\\…") ||
		strings.Contains(written, "...") || strings.HasPrefix(written, "/") || schemePattern.MatchString(written) {
		return "", false
	}
	p := repoRelative(written)
	if strings.Contains(p, ":") {
		return "", false
	}
	if strings.HasPrefix(p, "../") {
		p = path.Join(pageDir, p)
		if p == ".." || strings.HasPrefix(p, "../") {
			return "", false // outside the repository
		}
	}
	first, _, _ := strings.Cut(p, "/")
	if ignored[first] || !top[first] && strings.Contains(first, ".") {
		return "", false // made by a build or a run, or a module path (github.com/…)
	}
	return p, top[first] || pathExtensions[path.Ext(strings.TrimSuffix(p, "/"))]
}

// topFolders are the folders at the repository's root, but .git and those
// a build or a run makes.
func topFolders(root string) map[string]bool {
	ignored := ignoredRoots(root)
	top := map[string]bool{}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.IsDir() && e.Name() != ".git" && !ignored[e.Name()] {
			top[e.Name()] = true
		}
	}
	return top
}

// ignoredRoots are the names .gitignore keeps out at the root (`/bin/`,
// `/.data/`): what a build or a run makes, absent from a clean checkout.
func ignoredRoots(root string) map[string]bool {
	ignored := map[string]bool{}
	data, _ := os.ReadFile(filepath.Join(root, ".gitignore"))
	for _, line := range strings.Split(string(data), "\n") {
		name, ok := strings.CutPrefix(strings.TrimSpace(line), "/")
		name = strings.TrimSuffix(name, "/")
		if ok && name != "" && !strings.ContainsAny(name, "/*?[") {
			ignored[name] = true
		}
	}
	return ignored
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
	return markdownLinesAt(file, func(_ int, line string) { each(line) })
}

// markdownLinesAt is markdownLines with each line's number, from 1.
func markdownLinesAt(file string, each func(n int, line string)) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	fenced, indented, blank := false, false, true
	for n := 1; scanner.Scan(); n++ {
		line := scanner.Text()
		switch {
		case isFence(line):
			fenced = !fenced
			each(n, "")
		case fenced:
		case strings.TrimSpace(line) == "":
			blank = true
			each(n, "")
			continue
		case strings.HasPrefix(line, "    ") && (blank || indented):
			indented = true
		default:
			indented = false
			each(n, line)
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
