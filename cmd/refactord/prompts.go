package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
	"github.com/pharo-refactor/refactord/config"
	"github.com/pharo-refactor/refactord/mcpclient"
	"github.com/pharo-refactor/refactord/pipeline"
)

const promptsUsage = `usage: refactord prompts render [flags] CLASS SELECTOR
       refactord prompts render [flags] 'CLASS>>SELECTOR'

Prints every role's opening request for a method of the image, exactly as a
run would send it (system instruction, user message, response schema,
tools, and the inputs cut to the context budget), without calling a model:
for reviewing prompts. The image is reached with the usual configuration
(PHARO_MCP_COMMAND, PHARO_MCP_ARGS, … and PROMPT_MAX_*_BYTES); the writer,
validator and refiner are shown with a sample review, the original method
as the candidate, and a sample feedback.

flags:
`

// promptsCommand runs `refactord prompts …` and answers the exit code.
func promptsCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "render" {
		fmt.Fprint(stderr, promptsUsage)
		return 2
	}
	fs := flag.NewFlagSet("prompts render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	classSide := fs.Bool("class-side", false, "the method is on the class side (also: 'Foo class' as CLASS)")
	image := fs.String("image", "", "serve this Tonel tree with PHARO_MCP_COMMAND (pharo-sim): PHARO_MCP_ARGS='serve --dir DIR'")
	asJSON := fs.Bool("json", false, "print the requests as JSON")
	fs.Usage = func() { fmt.Fprint(stderr, promptsUsage); fs.PrintDefaults() }
	ref, err := parseRenderArgs(fs, args[1:])
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "refactord prompts render: %v\n", err)
		}
		return 2
	}
	ref.ClassSide = ref.ClassSide || *classSide
	cfg, err := loadConfig()
	if err != nil {
		fmt.Fprintf(stderr, "refactord: configuration:\n%v\n", err)
		return 2
	}
	if *image != "" {
		cfg.PharoMCPArgs = []string{"serve", "--dir", *image}
	}
	rendered, err := renderRequests(cfg, ref)
	if err != nil {
		fmt.Fprintf(stderr, "refactord prompts render: %v\n", err)
		return 1
	}
	if *asJSON {
		return printJSON(stdout, stderr, rendered)
	}
	printRequests(stdout, ref, rendered)
	return 0
}

// parseRenderArgs reads CLASS SELECTOR or CLASS>>SELECTOR, flags anywhere.
func parseRenderArgs(fs *flag.FlagSet, args []string) (refactor.MethodRef, error) {
	var rest []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return refactor.MethodRef{}, err
		}
		if fs.NArg() == 0 {
			break
		}
		rest, args = append(rest, fs.Arg(0)), fs.Args()[1:]
	}
	if len(rest) == 1 && strings.Contains(rest[0], ">>") {
		class, sel, _ := strings.Cut(rest[0], ">>")
		rest = []string{strings.TrimSpace(class), strings.TrimPrefix(strings.TrimSpace(sel), "#")}
	}
	if len(rest) != 2 {
		fs.Usage()
		return refactor.MethodRef{}, errors.New("want CLASS SELECTOR")
	}
	ref := refactor.MethodRef{Class: rest[0], Selector: rest[1]}
	if c, ok := strings.CutSuffix(ref.Class, " class"); ok {
		ref.Class, ref.ClassSide = strings.TrimSpace(c), true
	}
	return ref, ref.Validate()
}

// renderRequests reads the method's input from the image as a run does and
// renders every role's opening request.
func renderRequests(cfg config.Config, ref refactor.MethodRef) ([]agents.Rendered, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*cfg.PharoMCPTimeout)
	defer cancel()
	image, err := mcpclient.New(mcpclient.Config{
		Command: cfg.PharoMCPCommand, Args: cfg.PharoMCPArgs, Dir: cfg.PharoMCPCwd, Env: cfg.PharoMCPEnv,
		CallTimeout: cfg.PharoMCPTimeout, StderrSink: io.Discard, Logger: zap.NewNop(),
	})
	if err != nil {
		return nil, err
	}
	defer func() { _ = image.Close() }()
	if err := image.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting the Pharo MCP server (%s): %w", cfg.PharoMCPCommand, err)
	}
	in, err := pipeline.ReadInput(ctx, image, ref)
	if err != nil {
		return nil, err
	}
	rounds := cfg.ReviewerMaxToolRounds
	if cfg.ModelProvider == "openai" && !cfg.OpenAITools {
		rounds = 0
	}
	budget := agents.Budget(cfg.Budget)
	return agents.RenderRequests(agents.Config{Tools: image, MaxToolRounds: rounds, Budget: budget}, in, renderSample(in, budget))
}

// renderSample stands in for the answers of the earlier roles: the
// original method is the candidate, unless it is over the budget (a run
// then stops after the review).
func renderSample(in refactor.Input, budget agents.Budget) agents.Sample {
	candidate, limit := in.Source, budget.MethodSource
	if limit == 0 {
		limit = agents.DefaultBudget().MethodSource
	}
	if len(candidate) > limit {
		candidate = "(sample) the candidate: the original is over the budget, so a run stops after its review"
	}
	return agents.Sample{
		Review: refactor.Review{Severity: refactor.SeverityMedium, Summary: "(sample) the reviewer's summary.", Issues: []refactor.Issue{
			{Principle: "(sample) a principle", Problem: "(sample) a problem in this method", Suggestion: "(sample) a suggestion"},
		}},
		Candidate: candidate,
		Feedback:  "(sample) the validator's feedback, or the errors of the checks.",
	}
}

func printRequests(w io.Writer, ref refactor.MethodRef, rendered []agents.Rendered) {
	fmt.Fprintf(w, "Opening requests for %s (writer, validator and refiner with a sample review, the original as the candidate, a sample feedback)\n", ref)
	for _, r := range rendered {
		user := ""
		if len(r.Messages) > 0 {
			user = r.Messages[0].Text
		}
		size := len(r.System) + len(user)
		fmt.Fprintf(w, "\n======== %s: %d bytes of prompt (about %d tokens)\n", r.Role, size, size/4)
		if len(r.Truncated) > 0 {
			fmt.Fprintf(w, "truncated to the budget: %s\n", strings.Join(r.Truncated, ", "))
		}
		fmt.Fprintf(w, "\n-------- system\n%s\n\n-------- user\n%s\n", r.System, user)
		if r.Schema != nil {
			fmt.Fprintf(w, "\n-------- response schema\n%s\n", indentJSON(r.Schema.JSONSchema(false)))
		}
		if len(r.Tools) > 0 {
			fmt.Fprint(w, "\n-------- tools (no response schema while tools are offered)\n")
			for _, t := range r.Tools {
				fmt.Fprintf(w, "%s: %s\n  parameters: %s\n", t.Name, t.Description, compactJSON(t.Parameters.JSONSchema(false)))
			}
		}
	}
}

// renderedJSON is one request as --json prints it.
type renderedJSON struct {
	Role      refactor.Role    `json:"role"`
	System    string           `json:"system"`
	User      string           `json:"user"`
	Schema    map[string]any   `json:"schema,omitempty"`
	Tools     []map[string]any `json:"tools,omitempty"`
	Truncated []string         `json:"truncated"`
}

func printJSON(stdout, stderr io.Writer, rendered []agents.Rendered) int {
	out := make([]renderedJSON, 0, len(rendered))
	for _, r := range rendered {
		j := renderedJSON{Role: r.Role, System: r.System, Schema: r.Schema.JSONSchema(false), Truncated: append([]string{}, r.Truncated...)}
		if len(r.Messages) > 0 {
			j.User = r.Messages[0].Text
		}
		for _, t := range r.Tools {
			j.Tools = append(j.Tools, map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters.JSONSchema(false)})
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(stderr, "refactord prompts render: %v\n", err)
		return 1
	}
	return 0
}

func indentJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// promptsRequested reports whether the command line asks for `prompts`.
func promptsRequested() bool { return len(os.Args) > 1 && os.Args[1] == "prompts" }
