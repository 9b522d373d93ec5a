package testenv

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
)

// Request is one request a fake model server received.
type Request struct {
	At time.Time
	// Role is the role the request names (agents.RoleHeader); "" when it
	// names none.
	Role   refactor.Role
	Path   string
	Header http.Header
	Body   []byte
}

// JSON decodes the request's body; nil when it is not a JSON object.
func (r Request) JSON() map[string]any {
	var v map[string]any
	_ = json.Unmarshal(r.Body, &v)
	return v
}

// Serve serves h on loopback until the test ends and returns its URL.
func Serve(t testing.TB, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// fakeModel is what the fake servers share: a queue of replies per role,
// the requests received, and what a request past the script gets.
type fakeModel struct {
	mu     sync.Mutex
	queues map[refactor.Role][]Reply
	seen   []Request
	strict testing.TB
}

// Script appends replies to role's queue. A request is answered from the
// queue of the role it names, else from the queue of "" (provider tests
// call the model without a role). The last reply of a queue answers every
// later request (StrictGemini, StrictOpenAI: none).
func (f *fakeModel) Script(role refactor.Role, replies ...Reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queue(role, append(f.queues[role], replies...))
}

// ScriptAll appends the replies of every role of a.
func (f *fakeModel) ScriptAll(a Answers) {
	for role, replies := range a {
		f.Script(role, replies...)
	}
}

// Set replaces role's queue, so that one server serves many runs.
func (f *fakeModel) Set(role refactor.Role, replies ...Reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queue(role, append([]Reply(nil), replies...))
}

func (f *fakeModel) queue(role refactor.Role, replies []Reply) {
	if f.queues == nil {
		f.queues = map[refactor.Role][]Reply{}
	}
	f.queues[role] = replies
}

// Reset forgets every queue and every request received.
func (f *fakeModel) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queues, f.seen = nil, nil
}

// strictFor makes each reply answer one request, and a request past them
// fail t.
func (f *fakeModel) strictFor(t testing.TB) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.strict = t
}

// Requests lists the requests received, oldest first.
func (f *fakeModel) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.seen...)
}

// Count is the number of requests received for role ("": naming none).
func (f *fakeModel) Count(role refactor.Role) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.seen {
		if r.Role == role {
			n++
		}
	}
	return n
}

// Total is the number of requests received.
func (f *fakeModel) Total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.seen)
}

// fake is a fake model server.
type fake interface {
	http.Handler
	Script(role refactor.Role, replies ...Reply)
	strictFor(t testing.TB)
}

// StrictGemini serves a FakeGemini for a provider test, accepting only
// key: replies answer the requests in order, one each, whatever role they
// name, and a request past them fails t. It returns the fake and its URL.
func StrictGemini(t testing.TB, key string, replies ...Reply) (*FakeGemini, string) {
	f := &FakeGemini{Key: key}
	return f, serveStrict(t, f, replies)
}

// StrictOpenAI is StrictGemini for a FakeOpenAI.
func StrictOpenAI(t testing.TB, key string, replies ...Reply) (*FakeOpenAI, string) {
	f := &FakeOpenAI{Key: key}
	return f, serveStrict(t, f, replies)
}

func serveStrict(t testing.TB, f fake, replies []Reply) string {
	f.strictFor(t)
	f.Script("", replies...)
	return Serve(t, f)
}

// protocol is one provider's API: what it refuses before any scripted
// reply, and the bodies of its errors and answers.
type protocol interface {
	refuse(r *http.Request, body []byte) *Reply
	errorBody(status int, message string) any
	answerBody(reply Reply) any
}

// shaper is a protocol whose server changes a scripted reply as the
// model it imitates would, given the request's body.
type shaper interface {
	shape(reply Reply, body []byte) Reply
}

// serve records r, then answers it: the protocol's refusal, or the next
// scripted reply after its hook and its delay.
func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request, p protocol) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		return
	}
	req := Request{At: time.Now(), Role: agents.RoleOf(r), Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	f.mu.Lock()
	f.seen = append(f.seen, req)
	f.mu.Unlock()
	if refusal := p.refuse(r, body); refusal != nil {
		write(w, p, *refusal)
		return
	}
	reply := f.next(req.Role)
	if s, ok := p.(shaper); ok {
		reply = s.shape(reply, body)
	}
	if reply.Before != nil {
		reply.Before()
	}
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	write(w, p, reply)
}

// next takes the reply for a request of role.
func (f *fakeModel) next(role refactor.Role) Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	from := role
	if len(f.queues[from]) == 0 {
		from = ""
	}
	q := f.queues[from]
	switch {
	case len(q) == 0:
		if f.strict != nil {
			f.strict.Errorf("fake model: request %d (role %q) has no scripted reply", len(f.seen), role)
		}
		// Not retried: a run that reaches past its script fails at once.
		return Reply{Status: http.StatusBadRequest, Text: fmt.Sprintf("no scripted reply for role %q", role)}
	case len(q) > 1 || f.strict != nil:
		f.queues[from] = q[1:]
	}
	return q[0]
}

// write sends reply as p's API would: its Body as it is, else an error of
// its Status, else an answer of its Text or Call.
func write(w http.ResponseWriter, p protocol, reply Reply) {
	body, status := reply.Body, reply.Status
	switch {
	case body != nil:
	case status != 0 && status != http.StatusOK:
		body = p.errorBody(status, reply.Text)
	default:
		body = p.answerBody(reply)
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// FakeGemini speaks the Gemini API's generateContent on loopback — and
// Vertex AI's, at its paths (/v1beta1/projects/P/locations/L/publishers/
// google/models/M:generateContent, or without the project and location in
// express mode) — with the real APIs' refusals: an unknown path (404), a
// wrong key when Key is set, a missing or wrong bearer token when Token is
// set, a body that is not JSON, and function declarations together with a
// JSON response type (400). With Token set it also serves an OAuth token
// endpoint at /token, for ServiceAccountFile's credentials.
type FakeGemini struct {
	fakeModel
	// Key, when set, is the only x-goog-api-key accepted.
	Key string
	// Token, when set, is the only bearer token accepted (Vertex AI with
	// Application Default Credentials), and the one /token hands out.
	Token string
}

func (f *FakeGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.Token != "" && r.URL.Path == tokenPath {
		f.serveToken(w, r)
		return
	}
	f.serve(w, r, f)
}

func (f *FakeGemini) refuse(r *http.Request, body []byte) *Reply {
	var req map[string]any
	switch {
	case r.Method != http.MethodPost || !geminiPath(r.URL.Path):
		return &Reply{Status: http.StatusNotFound, Text: "not found: " + r.URL.Path}
	case f.Key != "" && r.Header.Get("x-goog-api-key") != f.Key:
		return &Reply{Status: http.StatusBadRequest, Text: "API key not valid. Please pass a valid API key."}
	case f.Token != "" && r.Header.Get("Authorization") != "Bearer "+f.Token:
		return &Reply{Status: http.StatusUnauthorized, Text: "Request had invalid authentication credentials. Expected OAuth 2 access token."}
	case json.Unmarshal(body, &req) != nil:
		return &Reply{Status: http.StatusBadRequest, Text: "Invalid JSON payload received."}
	case Dig(req, "tools") != nil && Dig(req, "generationConfig", "responseMimeType") == "application/json":
		return &Reply{Status: http.StatusBadRequest, Text: "Function calling with a response mime type: 'application/json' is unsupported"}
	}
	return nil
}

func (f *FakeGemini) errorBody(status int, message string) any {
	return map[string]any{"error": map[string]any{"code": status, "message": message, "status": geminiStatus(status)}}
}

func (f *FakeGemini) answerBody(reply Reply) any {
	part := map[string]any{"text": reply.Text}
	if reply.Call != nil {
		part = map[string]any{"functionCall": reply.Call}
	}
	finish := "STOP"
	if reply.FinishReason != "" {
		finish = reply.FinishReason
	}
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": finish,
		}},
		"usageMetadata": geminiUsage(reply.usage()),
	}
}

// geminiUsage is u as Gemini's usageMetadata reports it: thoughts apart
// from the candidates, and the total over all three.
func geminiUsage(u TokenUsage) map[string]any {
	m := map[string]any{"promptTokenCount": u.Input, "candidatesTokenCount": u.Output, "totalTokenCount": u.Input + u.Output + u.Thoughts}
	if u.Thoughts > 0 {
		m["thoughtsTokenCount"] = u.Thoughts
	}
	return m
}

// geminiStatus is the API's status name for an HTTP status.
func geminiStatus(code int) string {
	switch code {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	}
	return "INTERNAL"
}

// FakeOpenAI speaks chat completions on loopback (under /v1), with an
// OpenAI-compatible server's refusals: an unknown path (404) and, when Key
// is set, any other bearer token (401). GET /v1/models lists Models. Like
// names a real server whose differences it imitates (see OpenAIServer).
type FakeOpenAI struct {
	fakeModel
	// Key, when set, is the only bearer token accepted.
	Key string
	// Models are the IDs GET /v1/models lists; default "fake".
	Models []string
	// Like is the server imitated; "" is a server that does what OpenAI
	// does.
	Like OpenAIServer
}

func (f *FakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
		f.serveModels(w, r)
		return
	}
	f.serve(w, r, f)
}

func (f *FakeOpenAI) refuse(r *http.Request, body []byte) *Reply {
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions":
		return &Reply{Status: http.StatusNotFound, Text: "unknown path " + r.URL.Path}
	case f.Key != "" && r.Header.Get("Authorization") != "Bearer "+f.Key:
		return &Reply{Status: http.StatusUnauthorized, Text: "Incorrect API key provided"}
	}
	return f.Like.refuse(body)
}

func (f *FakeOpenAI) errorBody(status int, message string) any {
	typ := "invalid_request_error"
	if status >= 500 {
		typ = "server_error"
	}
	return map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": nil}}
}

func (f *FakeOpenAI) answerBody(reply Reply) any {
	message, finish := map[string]any{"role": "assistant", "content": reply.Text}, "stop"
	if reply.FinishReason != "" {
		finish = reply.FinishReason
	}
	if reply.Call != nil {
		args, _ := json.Marshal(reply.Call["args"])
		message["content"], finish = nil, "tool_calls"
		message["tool_calls"] = []any{map[string]any{
			"id": "call_1", "type": "function", "function": map[string]any{"name": reply.Call["name"], "arguments": string(args)},
		}}
	}
	return map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "fake",
		"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish, "logprobs": nil}},
		"usage":   openAIUsage(reply.usage()),
	}
}

// openAIUsage is u as chat completions report it: the reasoning tokens
// within the completion tokens.
func openAIUsage(u TokenUsage) map[string]any {
	completion := u.Output + u.Thoughts
	m := map[string]any{"prompt_tokens": u.Input, "completion_tokens": completion, "total_tokens": u.Input + completion}
	if u.Thoughts > 0 {
		m["completion_tokens_details"] = map[string]any{"reasoning_tokens": u.Thoughts}
	}
	return m
}

// Dig walks decoded JSON: a string key indexes an object, an int an array;
// nil when the path is not there.
func Dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}
