package agents

import (
	"bytes"
	"embed"
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/pharo-refactor/refactord/smalltalk/capability"
)

//go:embed prompts/*.md
var promptFS embed.FS

// dataTag opens and closes fenced image data in prompts.
const dataTag = "image-data"

// fence wraps untrusted text (from the image, or written by an earlier
// model step) in <image-data> tags the prompts declare as data. The tag
// gets a numeric suffix until the text cannot contain its closing tag, so
// the text is never altered and cannot close the fence early.
func fence(label, text string) string {
	tag := dataTag
	for i := 1; strings.Contains(text, tag); i++ {
		tag = dataTag + "-" + strconv.Itoa(i)
	}
	body := strings.TrimRight(normalizeNewlines(text), "\n")
	if strings.TrimSpace(body) == "" {
		body = "(none)"
	}
	return fmt.Sprintf("<%s label=%q>\n%s\n</%s>", tag, label, body, tag)
}

// prompts holds one parsed template set per role.
type prompts struct {
	byRole map[refactor.Role]*template.Template
	// buffers are the renders' output buffers, reused from one render to
	// the next: a prompt is tens of kilobytes, which a fresh buffer would
	// reach by growing (and copying) a dozen times.
	buffers sync.Pool
}

// capabilityRules is the shared template that lists the capability
// policy: the same text in every prompt, rendered once when the prompts
// load (capabilityRulesText).
const capabilityRules = "capability-rules"

// maxKeptBuffer bounds the buffers kept for the next render, so that one
// outsized prompt does not stay allocated.
const maxKeptBuffer = 1 << 20

// templateFuncs are the functions the prompts' templates call.
func templateFuncs() template.FuncMap {
	return template.FuncMap{"fence": fence, "join": strings.Join, "selectorList": selectorList, "relatedLabel": relatedLabel, "helperLabel": helperLabel}
}

func loadPrompts() (*prompts, error) {
	funcs := templateFuncs()
	rules, err := capabilityRulesText(funcs)
	if err != nil {
		return nil, err
	}
	funcs["capabilityRules"] = func() string { return rules }
	p := &prompts{byRole: make(map[refactor.Role]*template.Template, 4)}
	p.buffers.New = func() any { return new(bytes.Buffer) }
	for _, role := range refactor.AllRoles() {
		t, err := parseRole(role, funcs)
		if err != nil {
			return nil, err
		}
		// The rules' template answers its text rendered at load.
		if _, err := t.New(capabilityRules).Parse("{{capabilityRules}}"); err != nil {
			return nil, fmt.Errorf("the %s prompt's capability rules: %w", role, err)
		}
		p.byRole[role] = t
	}
	return p, nil
}

// parseRole parses the shared templates and role's own.
func parseRole(role refactor.Role, funcs template.FuncMap) (*template.Template, error) {
	t, err := template.New(string(role)).Funcs(funcs).Option("missingkey=error").
		ParseFS(promptFS, "prompts/shared.md", "prompts/"+string(role)+".md")
	if err != nil {
		return nil, fmt.Errorf("parsing the %s prompt: %w", role, err)
	}
	for _, name := range []string{"system", "user"} {
		if t.Lookup(name) == nil {
			return nil, fmt.Errorf("the %s prompt defines no %q template", role, name)
		}
	}
	return t, nil
}

// capabilityRulesText renders the shared capability rules, which read
// nothing of a run: only the policy's lists (promptData.Capabilities).
func capabilityRulesText(funcs template.FuncMap) (string, error) {
	t, err := template.New("shared").Funcs(funcs).Option("missingkey=error").ParseFS(promptFS, "prompts/shared.md")
	if err != nil {
		return "", fmt.Errorf("parsing the shared prompt: %w", err)
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, capabilityRules, promptData{}); err != nil {
		return "", fmt.Errorf("rendering the capability rules: %w", err)
	}
	return b.String(), nil
}

// promptData is what the templates see: the method's names, its inputs as
// the budget lets them be shown (In), and the role's own data.
type promptData struct {
	refactor.MethodRef
	Subject string
	In      shown
	// Format is the answer's JSON shape, rendered from the role's schema.
	Format     string
	ReviewText string
	Candidate  string
	// CandidateHelpers are the new helper methods that come with Candidate.
	CandidateHelpers []refactor.Helper
	Feedback         string
	Tools            bool
	ToolNames        []string
	MaxToolRounds    int
}

func newPromptData(in refactor.Input, s shown, schema *Schema) promptData {
	return promptData{MethodRef: in.MethodRef, Subject: in.String(), In: s, Format: schema.Format()}
}

// MaxHelpers is how many helper methods a candidate may bring.
func (promptData) MaxHelpers() int { return refactor.MaxHelpers }

// MaxHelperBytes is the largest helper source a candidate may bring.
func (promptData) MaxHelperBytes() int { return refactor.MaxHelperBytes }

// CapabilityRules are the lists of smalltalk/capability as the prompts
// render them, so that the model learns them before a wasted round.
type CapabilityRules struct {
	ValueClasses     []string
	Families         []capability.Family
	PrimitivePragmas []string
}

// Capabilities is the capability policy, for the templates.
func (promptData) Capabilities() CapabilityRules {
	return CapabilityRules{
		ValueClasses: capability.ValueClasses(), Families: capability.Families(),
		PrimitivePragmas: capability.PrimitivePragmaPrefixes(),
	}
}

// selectorList renders a family's selectors, prefixes as "perform:…".
func selectorList(f capability.Family) string {
	out := make([]string, 0, len(f.Prefixes)+len(f.Selectors))
	for _, p := range f.Prefixes {
		out = append(out, p+"…")
	}
	return strings.Join(append(out, f.Selectors...), ", ")
}

// relatedLabel is the fence label of a related method.
func relatedLabel(m refactor.RelatedMethod) string {
	switch m.Why {
	case refactor.RelatedSent:
		return m.Ref.String() + ", sent to self"
	case refactor.RelatedSimilar:
		return m.Ref.String() + ", repeats code of this method"
	}
	return m.Ref.String()
}

// helperLabel is the fence label of a candidate's helper method.
func helperLabel(h refactor.Helper) string {
	if h.Selector == "" {
		return "new helper method"
	}
	return "new helper method #" + h.Selector
}

// render returns the system instruction and the first user message of role.
func (p *prompts) render(role refactor.Role, d promptData) (system, user string, err error) {
	t := p.byRole[role]
	buf := p.buffers.Get().(*bytes.Buffer)
	defer p.keep(buf)
	if system, err = execute(t, "system", d, buf); err != nil {
		return "", "", fmt.Errorf("rendering the %s system prompt: %w", role, err)
	}
	if user, err = execute(t, "user", d, buf); err != nil {
		return "", "", fmt.Errorf("rendering the %s user prompt: %w", role, err)
	}
	return system, user, nil
}

// execute renders t's template name into buf and answers it trimmed.
func execute(t *template.Template, name string, d promptData, buf *bytes.Buffer) (string, error) {
	buf.Reset()
	if err := t.ExecuteTemplate(buf, name, d); err != nil {
		return "", err
	}
	return string(bytes.TrimSpace(buf.Bytes())), nil
}

// keep gives buf back for the next render, unless it grew outsized.
func (p *prompts) keep(buf *bytes.Buffer) {
	if buf.Cap() <= maxKeptBuffer {
		p.buffers.Put(buf)
	}
}

// reviewText renders a review for the other roles' prompts.
func reviewText(r refactor.Review) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Severity: %s\nSummary: %s\n", r.Severity, r.Summary)
	if len(r.Issues) > 0 {
		b.WriteString("Issues:\n")
	}
	for _, is := range r.Issues {
		fmt.Fprintf(&b, "- [%s] %s Suggestion: %s\n", is.Principle, is.Problem, is.Suggestion)
	}
	return b.String()
}
