package agents

import (
	"embed"
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
	"strconv"
	"strings"
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
}

func loadPrompts() (*prompts, error) {
	funcs := template.FuncMap{"fence": fence, "join": strings.Join, "selectorList": selectorList, "relatedLabel": relatedLabel, "helperLabel": helperLabel}
	p := &prompts{byRole: make(map[refactor.Role]*template.Template, 4)}
	for _, role := range refactor.AllRoles() {
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
		p.byRole[role] = t
	}
	return p, nil
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
	var sb, ub strings.Builder
	if err := t.ExecuteTemplate(&sb, "system", d); err != nil {
		return "", "", fmt.Errorf("rendering the %s system prompt: %w", role, err)
	}
	if err := t.ExecuteTemplate(&ub, "user", d); err != nil {
		return "", "", fmt.Errorf("rendering the %s user prompt: %w", role, err)
	}
	return strings.TrimSpace(sb.String()), strings.TrimSpace(ub.String()), nil
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
