package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	refactor "pharo-refactor"
)

// Defaults of Config's zero fields.
const (
	defaultMaxAnswerBytes       = 256 << 10
	defaultMaxToolResultBytes   = 16 << 10
	defaultMaxToolCallsPerRound = 8
)

// Config builds Roles. Each role has its own Model (REVIEWER_MODEL_ID etc.);
// the same Model may serve several roles.
type Config struct {
	Reviewer, Writer, Validator, Refiner Model
	// Tools lets the reviewer read the image; nil means it works from the
	// prefetched method, class definition and comment only.
	Tools ImageTools
	// MaxToolRounds bounds the reviewer's tool rounds
	// (REVIEWER_MAX_TOOL_ROUNDS); 0 disables tools.
	MaxToolRounds int
	// MaxAnswerBytes bounds one answer's text.
	MaxAnswerBytes int
	// MaxToolResultBytes bounds one tool result fed back to the model.
	MaxToolResultBytes int
	// MaxToolCallsPerRound bounds the calls honoured in one round; the
	// rest are refused.
	MaxToolCallsPerRound int
}

// Roles runs the four roles. It is safe for concurrent use if its Models
// and ImageTools are.
type Roles struct {
	cfg     Config
	prompts *prompts
}

// New checks cfg, fills defaults and loads the prompts.
func New(cfg Config) (*Roles, error) {
	for _, role := range refactor.AllRoles() {
		if cfg.model(role) == nil {
			return nil, fmt.Errorf("agents: no model for the %s", role)
		}
	}
	if cfg.MaxToolRounds < 0 {
		return nil, errors.New("agents: MaxToolRounds must not be negative")
	}
	cfg.MaxAnswerBytes = orDefault(cfg.MaxAnswerBytes, defaultMaxAnswerBytes)
	cfg.MaxToolResultBytes = orDefault(cfg.MaxToolResultBytes, defaultMaxToolResultBytes)
	cfg.MaxToolCallsPerRound = orDefault(cfg.MaxToolCallsPerRound, defaultMaxToolCallsPerRound)
	p, err := loadPrompts()
	if err != nil {
		return nil, fmt.Errorf("agents: %w", err)
	}
	return &Roles{cfg: cfg, prompts: p}, nil
}

// model returns the Model of role.
func (c Config) model(role refactor.Role) Model {
	switch role {
	case refactor.RoleReviewer:
		return c.Reviewer
	case refactor.RoleWriter:
		return c.Writer
	case refactor.RoleValidator:
		return c.Validator
	case refactor.RoleRefiner:
		return c.Refiner
	}
	return nil
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// Review asks the reviewer for a structured review of in's method. With
// ImageTools and MaxToolRounds > 0 the reviewer may call the allowlisted
// read-only tools; each round is one more model call.
func (r *Roles) Review(ctx context.Context, in refactor.Input) (refactor.Review, refactor.CallStats, error) {
	var out refactor.Review
	rounds := 0
	if r.cfg.Tools != nil {
		rounds = r.cfg.MaxToolRounds
	}
	data := r.data(in)
	data.Tools, data.ToolNames, data.MaxToolRounds = rounds > 0, ToolNames(), rounds
	stats, err := r.converse(ctx, conversation{
		role: refactor.RoleReviewer, in: in, data: data,
		schema: ReviewSchema(), toolRounds: rounds,
		parse: func(text string, mode mode) (err error) { out, err = parseReview(text, mode); return err },
	})
	return out, stats, err
}

// Write asks the writer for a first candidate addressing review.
func (r *Roles) Write(ctx context.Context, in refactor.Input, review refactor.Review) (refactor.Candidate, refactor.CallStats, error) {
	var out refactor.Candidate
	data := r.data(in)
	data.ReviewText = reviewText(review)
	stats, err := r.converse(ctx, conversation{
		role: refactor.RoleWriter, in: in, data: data, schema: CandidateSchema(),
		parse: func(text string, mode mode) (err error) { out, err = parseCandidate(text, in.Class, mode); return err },
	})
	return out, stats, err
}

// Validate asks the validator for a verdict on candidateCode.
func (r *Roles) Validate(ctx context.Context, in refactor.Input, review refactor.Review, candidateCode string) (refactor.Verdict, refactor.CallStats, error) {
	var out refactor.Verdict
	data := r.data(in)
	data.ReviewText, data.Candidate = reviewText(review), candidateCode
	stats, err := r.converse(ctx, conversation{
		role: refactor.RoleValidator, in: in, data: data, schema: VerdictSchema(),
		parse: func(text string, mode mode) (err error) { out, err = parseVerdict(text, mode); return err },
	})
	return out, stats, err
}

// Refine asks the refiner for a better candidate than previousCode, given
// feedback (local check errors or the validator's verdict).
func (r *Roles) Refine(ctx context.Context, in refactor.Input, review refactor.Review, previousCode, feedback string) (refactor.Candidate, refactor.CallStats, error) {
	var out refactor.Candidate
	data := r.data(in)
	data.ReviewText, data.Candidate, data.Feedback = reviewText(review), previousCode, feedback
	stats, err := r.converse(ctx, conversation{
		role: refactor.RoleRefiner, in: in, data: data, schema: CandidateSchema(),
		parse: func(text string, mode mode) (err error) { out, err = parseCandidate(text, in.Class, mode); return err },
	})
	return out, stats, err
}

func (r *Roles) data(in refactor.Input) promptData {
	return promptData{Input: in, Subject: in.String()}
}

// conversation is one role invocation.
type conversation struct {
	role       refactor.Role
	in         refactor.Input
	data       promptData
	schema     *Schema
	toolRounds int
	// parse stores the parsed answer or says why it cannot.
	parse func(text string, mode mode) error
}

// converse runs the calls of one role: tool rounds (reviewer), then the
// answer, retried once with a corrective note when unusable.
func (r *Roles) converse(ctx context.Context, c conversation) (refactor.CallStats, error) {
	stats := refactor.CallStats{Role: c.role}
	if err := checkInput(c.in); err != nil {
		return stats, err
	}
	system, user, err := r.prompts.render(c.role, c.data)
	if err != nil {
		return stats, refactor.Wrap(refactor.Internal, err, "%s prompt", c.role)
	}
	msgs := []Message{UserText(user)}
	rounds, corrected := 0, false
	for {
		offer := rounds < c.toolRounds
		resp, err := r.call(ctx, c, system, msgs, offer, &stats)
		if err != nil {
			return stats, err
		}
		if offer && len(resp.ToolCalls) > 0 {
			rounds++
			if msgs, err = r.toolRound(ctx, msgs, resp, rounds >= c.toolRounds, &stats); err != nil {
				return stats, err
			}
			continue
		}
		problem := diagnose(resp, c.parse)
		if problem == "" {
			return stats, nil
		}
		if corrected {
			return stats, refactor.Errorf(refactor.ModelBadOutput, "%s: unusable answer after a corrective retry: %s", c.role, problem)
		}
		corrected = true
		msgs = withNote(msgs, correctiveNote(problem))
	}
}

// call makes one model call. A call that offers tools never carries the
// schema: the Gemini API refuses function declarations together with a JSON
// response type.
func (r *Roles) call(ctx context.Context, c conversation, system string, msgs []Message, offerTools bool, stats *refactor.CallStats) (Response, error) {
	req := Request{Role: c.role, Subject: c.in.String(), System: system, Messages: msgs}
	if offerTools {
		req.Tools = ToolDecls()
	} else {
		req.Schema = c.schema
	}
	resp, err := r.cfg.model(c.role).Generate(ctx, req)
	countCall(stats, resp.Usage)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", c.role, ClassifyError(ctx, "model", 0, "", err))
	}
	if resp.FinishReason == FinishSafety {
		return Response{}, refactor.Errorf(refactor.ModelBadOutput, "%s: the provider blocked the answer (%s)", c.role, orWord(resp.RawFinishReason, "safety"))
	}
	if len(resp.Text) > r.cfg.MaxAnswerBytes {
		return Response{}, refactor.Errorf(refactor.ModelBadOutput, "%s: the answer has %d bytes, over the limit of %d", c.role, len(resp.Text), r.cfg.MaxAnswerBytes)
	}
	return resp, nil
}

func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// diagnose says why an answer cannot be used, or "" when parse took it.
func diagnose(resp Response, parse func(string, mode) error) string {
	switch {
	case len(resp.ToolCalls) > 0:
		return "it called a tool, but no tools are available now"
	case resp.FinishReason == FinishLength:
		return "it was cut off at the length limit before it was complete"
	case strings.TrimSpace(resp.Text) == "":
		return "it was empty"
	}
	if err := parse(resp.Text, modeOf(resp)); err != nil {
		return err.Error()
	}
	return ""
}

func correctiveNote(problem string) string {
	return "Your previous answer could not be used: " + problem + ". " +
		"Answer again with only the JSON object the instructions describe: no prose, no code fences, keep it brief."
}

const toolsDoneNote = "You have used all your tool rounds; no more tools are available. " +
	"Give your review now, as the JSON object the instructions describe."

// withNote returns msgs with note appended to the last (user) message. The
// corrective retry resends the conversation rather than the unusable
// answer: the note says what was wrong, and turns keep alternating.
func withNote(msgs []Message, note string) []Message {
	out := slices.Clone(msgs)
	last := &out[len(out)-1]
	if last.Text == "" {
		last.Text = note
	} else {
		last.Text += "\n\n" + note
	}
	return out
}

// toolRound runs the model's tool calls and appends the exchange.
func (r *Roles) toolRound(ctx context.Context, msgs []Message, resp Response, last bool, stats *refactor.CallStats) ([]Message, error) {
	results := make([]ToolResult, 0, len(resp.ToolCalls))
	for i, tc := range resp.ToolCalls {
		stats.ToolCalls++
		content := r.runTool(ctx, tc, i)
		if ctx.Err() != nil {
			return nil, contextError(ctx, "reviewer tool "+tc.Name, ctx.Err())
		}
		results = append(results, ToolResult{CallID: tc.ID, Name: tc.Name, Content: content})
	}
	turn := Message{Speaker: SpeakerUser, ToolResults: results}
	if last {
		turn.Text = toolsDoneNote
	}
	return append(slices.Clone(msgs), Message{Speaker: SpeakerModel, Text: resp.Text, ToolCalls: resp.ToolCalls}, turn), nil
}

// runTool returns what the model gets back for one call: the fenced result,
// or why the call was refused or failed. Refusals never reach ImageTools,
// and failures are fed back so the review goes on.
func (r *Roles) runTool(ctx context.Context, tc ToolCall, index int) string {
	if index >= r.cfg.MaxToolCallsPerRound {
		return fmt.Sprintf("refused: at most %d tool calls per round", r.cfg.MaxToolCallsPerRound)
	}
	args, err := checkToolCall(tc)
	if err != nil {
		return "refused: " + err.Error()
	}
	out, err := r.cfg.Tools.CallTool(ctx, tc.Name, args)
	if err != nil {
		return "the tool failed:\n" + fence("error of "+tc.Name, truncate(err.Error(), 2<<10))
	}
	return fence("result of "+tc.Name, truncate(out, r.cfg.MaxToolResultBytes))
}
