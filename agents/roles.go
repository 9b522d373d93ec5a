package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	refactor "github.com/pharo-refactor/refactord"
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
	// Budget caps what the prompts show of each input; zero fields take
	// DefaultBudget's.
	Budget Budget
}

// Roles runs the four roles. It is safe for concurrent use if its Models
// and ImageTools are.
type Roles struct {
	cfg     Config
	prompts *prompts
	shapes  answerShapes
}

// answerShapes are the roles' answer schemas, their renderings for the
// prompts and the tools offered, built once: they are the same for every
// run, and the providers only read them.
type answerShapes struct {
	review, candidate, verdict *Schema
	formats                    map[*Schema]string
	tools                      []ToolDecl
	toolNames                  []string
}

func newAnswerShapes() answerShapes {
	a := answerShapes{review: ReviewSchema(), candidate: CandidateSchema(), verdict: VerdictSchema(), tools: ToolDecls(), toolNames: ToolNames()}
	a.formats = map[*Schema]string{}
	for _, s := range []*Schema{a.review, a.candidate, a.verdict} {
		a.formats[s] = s.Format()
	}
	return a
}

// New checks cfg, fills defaults and loads the prompts.
func New(cfg Config) (*Roles, error) {
	for _, role := range refactor.AllRoles() {
		if cfg.model(role) == nil {
			return nil, fmt.Errorf("agents: no model for the %s", role)
		}
	}
	return newRoles(cfg)
}

// newRoles is New without its models (RenderRequests needs none).
func newRoles(cfg Config) (*Roles, error) {
	if cfg.MaxToolRounds < 0 {
		return nil, errors.New("agents: MaxToolRounds must not be negative")
	}
	cfg.MaxAnswerBytes = orDefault(cfg.MaxAnswerBytes, defaultMaxAnswerBytes)
	cfg.MaxToolResultBytes = orDefault(cfg.MaxToolResultBytes, defaultMaxToolResultBytes)
	cfg.MaxToolCallsPerRound = orDefault(cfg.MaxToolCallsPerRound, defaultMaxToolCallsPerRound)
	cfg.Budget = cfg.Budget.withDefaults()
	p, err := loadPrompts()
	if err != nil {
		return nil, fmt.Errorf("agents: %w", err)
	}
	return &Roles{cfg: cfg, prompts: p, shapes: newAnswerShapes()}, nil
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
	c := r.reviewing(in)
	c.parse = func(text string, mode mode) (err error) { out, err = parseReview(text, mode); return err }
	stats, err := r.converse(ctx, c)
	return out, stats, err
}

// Write asks the writer for a first candidate addressing review.
func (r *Roles) Write(ctx context.Context, in refactor.Input, review refactor.Review) (refactor.Candidate, refactor.CallStats, error) {
	var out refactor.Candidate
	c := r.writing(in, review)
	c.parse = func(text string, mode mode) (err error) { out, err = parseCandidate(text, in.Class, mode); return err }
	stats, err := r.converse(ctx, c)
	return out, stats, err
}

// Validate asks the validator for a verdict on candidate: the method and
// its helpers, judged as a set.
func (r *Roles) Validate(ctx context.Context, in refactor.Input, review refactor.Review, candidate refactor.Candidate) (refactor.Verdict, refactor.CallStats, error) {
	var out refactor.Verdict
	c := r.validating(in, review, candidate)
	c.parse = func(text string, mode mode) (err error) { out, err = parseVerdict(text, mode); return err }
	stats, err := r.converse(ctx, c)
	return out, stats, err
}

// Refine asks the refiner for a better candidate than previous (the method
// and its helpers), given feedback (local check errors or the validator's
// verdict).
func (r *Roles) Refine(ctx context.Context, in refactor.Input, review refactor.Review, previous refactor.Candidate, feedback string) (refactor.Candidate, refactor.CallStats, error) {
	var out refactor.Candidate
	c := r.refining(in, review, previous, feedback)
	c.parse = func(text string, mode mode) (err error) { out, err = parseCandidate(text, in.Class, mode); return err }
	stats, err := r.converse(ctx, c)
	return out, stats, err
}

// The four conversations, without their parsers (Requests renders them
// without a model).

func (r *Roles) reviewing(in refactor.Input) conversation {
	rounds := 0
	if r.cfg.Tools != nil {
		rounds = r.cfg.MaxToolRounds
	}
	data := r.data(in, r.shapes.review)
	data.Tools, data.ToolNames, data.MaxToolRounds = rounds > 0, r.shapes.toolNames, rounds
	return conversation{role: refactor.RoleReviewer, in: in, data: data, schema: r.shapes.review, toolRounds: rounds}
}

func (r *Roles) writing(in refactor.Input, review refactor.Review) conversation {
	data := r.data(in, r.shapes.candidate)
	data.ReviewText = reviewText(review)
	return conversation{role: refactor.RoleWriter, in: in, data: data, schema: r.shapes.candidate}
}

func (r *Roles) validating(in refactor.Input, review refactor.Review, candidate refactor.Candidate) conversation {
	data := r.data(in, r.shapes.verdict)
	data.ReviewText, data.Candidate, data.CandidateHelpers = reviewText(review), candidate.Code, candidate.Helpers
	return conversation{role: refactor.RoleValidator, in: in, data: data, schema: r.shapes.verdict}
}

func (r *Roles) refining(in refactor.Input, review refactor.Review, previous refactor.Candidate, feedback string) conversation {
	data := r.data(in, r.shapes.candidate)
	data.ReviewText, data.Candidate, data.CandidateHelpers, data.Feedback = reviewText(review), previous.Code, previous.Helpers, feedback
	return conversation{role: refactor.RoleRefiner, in: in, data: data, schema: r.shapes.candidate}
}

// data is what the templates of a role answering in schema's shape see:
// in, cut to the budget.
func (r *Roles) data(in refactor.Input, schema *Schema) promptData {
	return promptData{MethodRef: in.MethodRef, Subject: in.String(), In: r.cfg.Budget.cut(in), Format: r.shapes.formats[schema]}
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

// opening is the first request of c: the system instruction, the user
// message, and the tools or the schema.
func (r *Roles) opening(c conversation) (Request, error) {
	system, user, err := r.prompts.render(c.role, c.data)
	if err != nil {
		return Request{}, refactor.Wrap(refactor.Internal, err, "%s prompt", c.role)
	}
	return r.request(c, system, []Message{UserText(user)}, c.toolRounds > 0), nil
}

// request is one call of c. A call that offers tools never carries the
// schema: the Gemini API refuses function declarations together with a JSON
// response type.
func (r *Roles) request(c conversation, system string, msgs []Message, offerTools bool) Request {
	req := Request{Role: c.role, Subject: c.in.String(), System: system, Messages: msgs}
	if offerTools {
		req.Tools = r.shapes.tools
	} else {
		req.Schema = c.schema
	}
	return req
}

// converse runs the calls of one role: tool rounds (reviewer), then the
// answer, retried once with a corrective note when unusable.
func (r *Roles) converse(ctx context.Context, c conversation) (refactor.CallStats, error) {
	stats := refactor.CallStats{Role: c.role}
	if err := checkInput(c.in); err != nil {
		return stats, err
	}
	first, err := r.opening(c)
	if err != nil {
		return stats, err
	}
	stats.Truncated = refactor.AddTruncated(nil, c.data.In.Truncated...)
	msgs := first.Messages
	spend := &toolSpend{left: r.cfg.Budget.ToolResults}
	rounds, corrected := 0, false
	for {
		offer := rounds < c.toolRounds
		resp, err := r.call(ctx, r.request(c, first.System, msgs, offer), &stats)
		if err != nil {
			return stats, err
		}
		if offer && len(resp.ToolCalls) > 0 {
			rounds++
			if msgs, err = r.toolRound(ctx, msgs, resp, rounds >= c.toolRounds, spend, &stats); err != nil {
				return stats, err
			}
			if spend.cut {
				stats.Truncated = refactor.AddTruncated(stats.Truncated, refactor.TruncatedToolResults)
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
		msgs = withNote(msgs, correctiveNote(resp, problem))
	}
}

// call makes one model call.
func (r *Roles) call(ctx context.Context, req Request, stats *refactor.CallStats) (Response, error) {
	resp, err := r.cfg.model(req.Role).Generate(ctx, req)
	countCall(stats, resp.Usage)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", req.Role, ClassifyError(ctx, "model", 0, "", err))
	}
	if resp.FinishReason == FinishSafety {
		return Response{}, refactor.Errorf(refactor.ModelBadOutput, "%s: the provider blocked the answer (%s)", req.Role, orWord(resp.RawFinishReason, "safety"))
	}
	if len(resp.Text) > r.cfg.MaxAnswerBytes {
		return Response{}, refactor.Errorf(refactor.ModelBadOutput, "%s: the answer has %d bytes, over the limit of %d", req.Role, len(resp.Text), r.cfg.MaxAnswerBytes)
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
	case resp.FinishReason == FinishRecitation:
		return "the provider stopped it because it recited existing text (" + orWord(resp.RawFinishReason, "recitation") + ")"
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

// correctiveNote tells the model what was wrong with resp. A recitation
// is not the model's mistake in the format: it is asked for its own words.
func correctiveNote(resp Response, problem string) string {
	if resp.FinishReason == FinishRecitation {
		return "Your previous answer was stopped by the provider because it recited existing text verbatim. " +
			"Answer again with only the JSON object the instructions describe, in your own words: " +
			"quote no more of the original method than the answer needs, and keep notes and feedback brief."
	}
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
func (r *Roles) toolRound(ctx context.Context, msgs []Message, resp Response, last bool, spend *toolSpend, stats *refactor.CallStats) ([]Message, error) {
	results := make([]ToolResult, 0, len(resp.ToolCalls))
	for i, tc := range resp.ToolCalls {
		stats.ToolCalls++
		content := r.runTool(ctx, tc, i, spend)
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

// runTool returns what the model gets back for one call: the fenced result
// (cut to what is left of the budget), or why the call was refused or
// failed. Refusals never reach ImageTools, and failures are fed back so the
// review goes on.
func (r *Roles) runTool(ctx context.Context, tc ToolCall, index int, spend *toolSpend) string {
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
	shown, ok := spend.take(out, r.cfg.MaxToolResultBytes)
	if !ok {
		return fmt.Sprintf("refused: the tool results of this review have used their budget of %d bytes (%d bytes of this result not shown)", r.cfg.Budget.ToolResults, len(out))
	}
	return fence("result of "+tc.Name, shown)
}
