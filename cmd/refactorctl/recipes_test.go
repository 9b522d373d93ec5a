package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/internal/version"
)

// The CI recipes under examples/ci are valid YAML; every shell script in
// them is valid bash; every command they run exists (a shell builtin, a
// program on this machine's PATH, or refactorctl itself, whose every
// invocation names a real command with flags it accepts); and each runs
// `refactorctl batch --verify --write .`, shows `git diff` and opens a
// merge request; each installs refactorctl with `go install` at this
// release.
func TestCIRecipes(t *testing.T) {
	root, err := testenv.Root()
	require.NoError(t, err)
	bash, err := exec.LookPath("bash")
	require.NoError(t, err)
	cases := []struct {
		file    string
		scripts func(doc map[string]any) []string
		opens   string // what opens the merge request
	}{
		{"github-actions.yml", githubScripts, "/pulls"},
		{"github-actions-pharo-sim.yml", githubScripts, "/pulls"},
		{"gitlab-ci.yml", gitlabScripts, "merge_request.create"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(root, "examples", "ci", tc.file))
			require.NoError(t, err)
			var doc map[string]any
			require.NoError(t, yaml.Unmarshal(data, &doc), "valid YAML")
			scripts := tc.scripts(doc)
			require.NotEmpty(t, scripts)
			var calls []string
			for _, s := range scripts {
				out, err := exec.Command(bash, "-n", "-c", s).CombinedOutput()
				require.NoError(t, err, "bash -n: %s\n%s", out, s)
				calls = append(calls, commandLines(s)...)
			}
			var ctlCalls []string
			for _, line := range calls {
				name := commandName(line)
				switch {
				case name == "refactorctl":
					ctlCalls = append(ctlCalls, line)
					checkRefactorctlCall(t, line)
				case shellBuiltins[name]:
				default:
					_, err := exec.LookPath(name)
					assert.NoError(t, err, "%s runs %q (%s), which does not exist", tc.file, name, line)
				}
			}
			all := strings.Join(scripts, "\n")
			assert.True(t, slices.ContainsFunc(ctlCalls, func(c string) bool {
				return strings.HasPrefix(c, "refactorctl batch --verify --write . ")
			}), "runs refactorctl batch --verify --write .: %v", ctlCalls)
			assert.Contains(t, calls, installLine, "installs refactorctl at this release")
			assert.Contains(t, calls, "git diff")
			assert.Contains(t, all, tc.opens)
			_, err = os.Stat(filepath.Join(root, "examples", "ci", "refactor-methods.txt"))
			assert.NoError(t, err, "the methods list the recipes name")
		})
	}
}

// installLine is how a recipe gets refactorctl: go install at the release
// this source is, from the module's import path.
var installLine = "go install " + installPath + "@v" + version.Version

// installPath is refactorctl's import path once the module is published.
const installPath = "github.com/pharo-refactor/refactord/cmd/refactorctl"

func githubScripts(doc map[string]any) []string {
	var out []string
	jobs, _ := doc["jobs"].(map[string]any)
	for _, j := range jobs {
		steps, _ := j.(map[string]any)["steps"].([]any)
		for _, s := range steps {
			if run, ok := s.(map[string]any)["run"].(string); ok {
				out = append(out, run)
			}
		}
	}
	return out
}

func gitlabScripts(doc map[string]any) []string {
	var out []string
	for _, j := range doc {
		job, ok := j.(map[string]any)
		if !ok {
			continue
		}
		for _, key := range []string{"before_script", "script", "after_script"} {
			lines, _ := job[key].([]any)
			for _, l := range lines {
				if s, ok := l.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// shellBuiltins are the words a script may start a command with that are
// not programs.
var shellBuiltins = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "for": true, "do": true, "done": true,
	"while": true, "case": true, "esac": true, "[": true, "test": true, "echo": true, "printf": true,
	"cd": true, "exit": true, "set": true, "export": true, "true": true, "false": true, "!": true,
}

// conditionKeywords come before a command whose status they test.
var conditionKeywords = map[string]bool{"if": true, "elif": true, "while": true, "until": true, "!": true}

var (
	substitution = regexp.MustCompile(`\$\(([^()]*)\)`)
	quoted       = regexp.MustCompile(`'[^']*'|"(?:[^"\\]|\\.)*"`)
	separators   = regexp.MustCompile(`&&|\|\||[;|()]|\bthen\b|\belse\b|\bdo\b`)
	assignment   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
)

// commandLines are the simple commands of a script, one per string, with
// quotes dropped, line continuations joined and comments left out; the
// commands of $( … ) come as their own.
func commandLines(script string) []string {
	script = strings.ReplaceAll(script, "\\\n", " ")
	var out []string
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, m := range substitution.FindAllStringSubmatch(line, -1) {
			out = append(out, commandLines(m[1])...)
		}
		line = substitution.ReplaceAllString(line, "SUBST")
		line = quoted.ReplaceAllStringFunc(line, func(q string) string {
			return strings.NewReplacer("&", "_", "|", "_", ";", "_", "(", "_", ")", "_", " ", "_").Replace(q[1 : len(q)-1])
		})
		for _, seg := range separators.Split(line, -1) {
			words := strings.Fields(seg)
			for len(words) > 0 && (assignment.MatchString(words[0]) || conditionKeywords[words[0]]) {
				words = words[1:]
			}
			if len(words) > 0 && !strings.Contains(words[0], ">") {
				out = append(out, strings.Join(words, " "))
			}
		}
	}
	return out
}

func commandName(line string) string {
	name, _, _ := strings.Cut(line, " ")
	return filepath.Base(name)
}

// checkRefactorctlCall parses an invocation with refactorctl's own flags.
func checkRefactorctlCall(t *testing.T, line string) {
	t.Helper()
	args := strings.Fields(line)[1:]
	require.NotEmpty(t, args, line)
	cmd, ok := findCommand(args[0])
	require.True(t, ok, "refactorctl has no command %q (%s)", args[0], line)
	o := options{}
	fs := newFlagSet(cmd.name)
	commonFlags(fs, &o)
	if cmd.flags != nil {
		cmd.flags(fs, &o)
	}
	_, err := parseInterspersed(fs, args[1:])
	assert.NoError(t, err, line)
	o.url = defaultURL
	o.timeout = 1
	assert.NoError(t, checkOptions(o), line)
	if o.writeDir != "" {
		assert.True(t, o.verify || o.dryRun, "--write with --verify or --dry-run: %s", line)
	}
}
