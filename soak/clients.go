package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/wire"
)

// call is one HTTP exchange a client makes.
type call struct {
	kind   string
	method string
	path   string
	body   []byte
	// contentType defaults to application/json when there is a body.
	contentType string
	noAuth      bool
	header      map[string]string
	// abandonAfter, when set, hangs up after this long (a client that
	// goes away mid-run).
	abandonAfter time.Duration
	// leaveAfterHeaders hangs up as soon as a 200's headers arrive (the
	// run is under way then).
	leaveAfterHeaders bool
	want              []int
}

// answer is what a call got back.
type answer struct {
	Request
	header http.Header
	body   []byte
}

// exchange makes c on the current refactord and records it.
func (s *soak) exchange(ctx context.Context, step int64, client int, c call) answer {
	id := fmt.Sprintf("soak-%d-%d", s.seed, step)
	if c.kind == "show_poll" || c.kind == "cancel" {
		id += "-" + c.kind
	}
	q := Request{ID: id, Step: step, Client: client, Kind: c.kind, Method: c.method, Path: c.path, WantStatus: c.want, Start: time.Now()}
	if c.abandonAfter > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.abandonAfter)
		defer cancel()
	}
	var body io.Reader
	if c.body != nil {
		body = bytes.NewReader(c.body)
	}
	req, err := http.NewRequestWithContext(ctx, c.method, s.url()+c.path, body)
	if err != nil {
		panic(err) // the soak builds every request itself
	}
	req.Header.Set("X-Request-ID", id)
	if c.body != nil {
		ct := c.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	if !c.noAuth {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	a := answer{}
	resp, err := s.load.Do(req)
	if err == nil && c.leaveAfterHeaders && resp.StatusCode == http.StatusOK {
		resp.Body.Close()
		q.End, q.Status, q.Abandoned = time.Now(), resp.StatusCode, true
		s.rec.request(q)
		s.noteRun(resp.Header)
		return answer{Request: q, header: resp.Header}
	}
	if err == nil {
		a.header = resp.Header
		q.Status = resp.StatusCode
		a.body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	q.End = time.Now()
	if err != nil {
		q.Err = err.Error()
		q.Abandoned = c.abandonAfter > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded)
	} else {
		s.judge(&q, a.header, a.body)
	}
	a.Request = q
	s.rec.request(q)
	s.noteRun(a.header)
	return a
}

// judge fills in the answer's code and whether openapi.yaml documents it;
// an event stream must end with its result or error event.
func (s *soak) judge(q *Request, header http.Header, body []byte) {
	var problem struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(body, &problem) == nil {
		q.Code = problem.Code
	}
	if strings.HasPrefix(header.Get("Content-Type"), "text/event-stream") {
		last := bytes.LastIndex(body, []byte("event: "))
		if last < 0 || !(bytes.HasPrefix(body[last:], []byte("event: result")) || bytes.HasPrefix(body[last:], []byte("event: error"))) {
			q.Err = "the event stream ended without its result or error event"
			return
		}
	}
	path, _, _ := strings.Cut(q.Path, "?")
	q.Undocumented = s.spec.check(q.Method, path, q.Status, header, body)
}

// noteRun remembers a run's id from its answer's headers.
func (s *soak) noteRun(header http.Header) {
	if id := header.Get("X-Refactoring-ID"); id != "" {
		s.mu.Lock()
		s.ids = append(s.ids, id)
		if len(s.ids) > 200 {
			s.ids = s.ids[len(s.ids)-200:]
		}
		s.mu.Unlock()
	}
}

func (s *soak) someID(rng *rand.Rand) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ids) == 0 || rng.IntN(8) == 0 {
		return "no-such-run"
	}
	return s.ids[rng.IntN(len(s.ids))]
}

// action is one thing a client does.
type action struct {
	kind   string
	weight int
	do     func(s *soak, ctx context.Context, rng *rand.Rand, step int64, client int)
	// exclusive actions run with every other client held off (a revert
	// reads the image right after it).
	exclusive bool
}

func actions() []action {
	run := func(kind string, edit func(*call, *wire.RefactorRequest)) func(*soak, context.Context, *rand.Rand, int64, int) {
		return func(s *soak, ctx context.Context, rng *rand.Rand, step int64, client int) {
			req := s.scriptRun(rng)
			c := call{kind: kind, method: http.MethodPost, path: "/api/v1/refactor"}
			edit(&c, &req)
			if c.body == nil {
				c.body, _ = json.Marshal(req)
			}
			a := s.exchange(ctx, step, client, c)
			// A client that means to leave mid-run waits its turn first
			// (the slot is often taken).
			for try := 0; kind == "disconnect_mid_run" && a.Status == http.StatusServiceUnavailable && a.Code == "busy" && try < 10; try++ {
				time.Sleep(time.Duration(100+rng.IntN(300)) * time.Millisecond)
				a = s.exchange(ctx, step, client, c)
			}
			if kind == "run_async" && a.Status == http.StatusAccepted {
				s.follow(ctx, rng, step, client, a.header.Get("X-Refactoring-ID"))
			}
		}
	}
	return []action{
		{kind: "run_release", weight: 12, do: run("run_release", func(*call, *wire.RefactorRequest) {})},
		{kind: "run_dry", weight: 8, do: run("run_dry", func(_ *call, r *wire.RefactorRequest) { r.DryRun = true })},
		{kind: "run_verify", weight: 5, do: run("run_verify", func(_ *call, r *wire.RefactorRequest) { r.Verify = true })},
		{kind: "run_wrapped", weight: 4, do: run("run_wrapped", func(c *call, r *wire.RefactorRequest) {
			c.body, _ = json.Marshal(map[string]any{"refactor_request": r})
		})},
		{kind: "run_sse", weight: 5, do: run("run_sse", func(c *call, _ *wire.RefactorRequest) {
			c.header = map[string]string{"Accept": "text/event-stream"}
		})},
		{kind: "run_async", weight: 5, do: run("run_async", func(c *call, _ *wire.RefactorRequest) {
			c.header = map[string]string{"Prefer": "respond-async"}
		})},
		{kind: "disconnect_mid_run", weight: 4, do: func(s *soak, ctx context.Context, rng *rand.Rand, step int64, client int) {
			run("disconnect_mid_run", func(c *call, r *wire.RefactorRequest) {
				// The reviewer takes its time, so that the client is gone
				// while the run goes on.
				s.model.holdNextReview(time.Duration(500+rng.IntN(2500)) * time.Millisecond)
				switch rng.IntN(3) {
				case 0: // the flat body's answer comes at the end: give up waiting
					c.abandonAfter = time.Duration(50+rng.IntN(1500)) * time.Millisecond
				case 1: // the wrapped body's headers come at the first model call
					c.body, _ = json.Marshal(map[string]any{"refactor_request": r})
					c.leaveAfterHeaders = true
				default: // an event stream's headers come with its first event
					c.header = map[string]string{"Accept": "text/event-stream"}
					c.leaveAfterHeaders = true
				}
			})(s, ctx, rng, step, client)
		}},
		{kind: "cancel", weight: 4, do: (*soak).cancelRun},
		{kind: "revert", weight: 3, do: (*soak).revertRun, exclusive: true},
		{kind: "history", weight: 8, do: func(s *soak, ctx context.Context, rng *rand.Rand, step int64, client int) {
			q := pick(rng, []string{"", "?limit=5", "?limit=100", "?outcome=released", "?class_name=Calculator&limit=3", "?limit=0", "?outcome=bogus", "?cursor=%ff%00"})
			s.exchange(ctx, step, client, call{kind: "history", method: http.MethodGet, path: "/api/v1/refactorings" + q})
		}},
		{kind: "show", weight: 6, do: func(s *soak, ctx context.Context, rng *rand.Rand, step int64, client int) {
			s.exchange(ctx, step, client, call{kind: "show", method: http.MethodGet, path: "/api/v1/refactorings/" + s.someID(rng)})
		}},
		{kind: "health", weight: 4, do: get("health", "/health")},
		{kind: "ready", weight: 3, do: get("ready", "/ready")},
		{kind: "metrics", weight: 3, do: get("metrics", "/metrics")},
		{kind: "malformed", weight: 3, do: badBody("malformed", func(rng *rand.Rand) []byte {
			return []byte(pick(rng, []string{`{"class_name": "Calc`, `{`, `[]`, `null`, `{"class_name": "Calculator",, }`, "\xff\xfe{}", `{"class_name":"Calculator","method_name":"sum:with:"} trailing`}))
		})},
		{kind: "wrong_type", weight: 3, do: badBody("wrong_type", func(rng *rand.Rand) []byte {
			return []byte(pick(rng, []string{`{"class_name": 5, "method_name": "sum:with:"}`, `{"class_name": "Calculator", "method_name": ["sum:with:"]}`,
				`{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": "yes"}`, `{"refactor_request": "Calculator"}`,
				`{"class_name": "Calculator", "method_name": "sum:with:", "is_class_method": 1}`}))
		})},
		{kind: "hostile_body", weight: 4, do: badBody("hostile_body", hostileBody)},
		{kind: "wrong_content_type", weight: 2, do: func(s *soak, ctx context.Context, rng *rand.Rand, step int64, client int) {
			s.exchange(ctx, step, client, call{kind: "wrong_content_type", method: http.MethodPost, path: "/api/v1/refactor",
				body: []byte(`{"class_name":"Calculator","method_name":"sum:with:"}`), contentType: pick(rng, []string{"text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1"})})
		}},
		{kind: "no_auth", weight: 2, do: func(s *soak, ctx context.Context, rng *rand.Rand, step int64, client int) {
			s.exchange(ctx, step, client, call{kind: "no_auth", method: http.MethodPost, path: "/api/v1/refactor", noAuth: true,
				body: []byte(`{"class_name":"Calculator","method_name":"sum:with:"}`), header: map[string]string{"Authorization": pick(rng, []string{"", "Bearer wrong", "Basic c29hazpzb2Fr"})}})
		}},
		{kind: "oversized", weight: 3, do: func(s *soak, ctx context.Context, rng *rand.Rand, step int64, client int) {
			withKey := rng.IntN(2) == 0
			want := []int{http.StatusRequestEntityTooLarge}
			if !withKey {
				want = []int{http.StatusUnauthorized, http.StatusRequestEntityTooLarge}
			}
			size := pick(rng, []string{"2MB", "100KB"})
			n := 2 << 20
			if size == "100KB" {
				n = 100 << 10
			}
			body := append(append([]byte(`{"class_name": "`), bytes.Repeat([]byte("A"), n)...), `", "method_name": "sum:with:"}`...)
			s.exchange(ctx, step, client, call{kind: "oversized", method: http.MethodPost, path: "/api/v1/refactor", body: body, noAuth: !withKey, want: want})
		}},
		{kind: "slow_client", weight: 2, do: (*soak).slowClient},
		{kind: "stalled_body", weight: 2, do: (*soak).stalledBody},
		{kind: "stalled_headers", weight: 1, do: (*soak).stalledHeaders},
	}
}

func get(kind, path string) func(*soak, context.Context, *rand.Rand, int64, int) {
	return func(s *soak, ctx context.Context, _ *rand.Rand, step int64, client int) {
		s.exchange(ctx, step, client, call{kind: kind, method: http.MethodGet, path: path})
	}
}

func badBody(kind string, body func(*rand.Rand) []byte) func(*soak, context.Context, *rand.Rand, int64, int) {
	return func(s *soak, ctx context.Context, rng *rand.Rand, step int64, client int) {
		s.exchange(ctx, step, client, call{kind: kind, method: http.MethodPost, path: "/api/v1/refactor", body: body(rng)})
	}
}

// hostileBody is a request that tries to reach past the API's checks: a
// class or selector that smuggles Smalltalk, deep nesting, a duplicated
// key, unknown keys, control characters.
func hostileBody(rng *rand.Rand) []byte {
	return []byte(pick(rng, []string{
		`{"class_name": "Calculator. Smalltalk at: #SoakPwned put: true", "method_name": "sum:with:"}`,
		`{"class_name": "Calculator", "method_name": "sum:with:' , (Smalltalk at: #SoakPwned put: true) printString , '"}`,
		`{"class_name": "Calculator", "method_name": "sum:with:", "class_name": "Smalltalk"}`,
		`{"class_name": "Calculator", "method_name": "sum:with:", "__proto__": {"admin": true}}`,
		`{"Class_Name": "Calculator", "method_name": "sum:with:"}`,
		`{"class_name": "Calcul\u0000ator", "method_name": "sum:with:"}`,
		`{"class_name": "\u202eCalculator", "method_name": "sum:with:"}`,
		strings.Repeat(`{"refactor_request":`, 5000) + strings.Repeat("}", 5000),
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000),
		`{"class_name": "Calculator", "method_name": "` + strings.Repeat("a:", 3000) + `"}`,
		`{"class_name": "Calculator class", "method_name": "compute:with:operation:"}`,
		`{"class_name": "Smalltalk", "method_name": "at:put:"}`,
	}))
}

// scriptRun draws a method and a model behaviour, scripts the fake model
// with it and returns the request.
func (s *soak) scriptRun(rng *rand.Rand) wire.RefactorRequest {
	all := targets()
	t := all[rng.IntN(len(all))]
	sc := drawScenario(rng, t, s.initial[t.key()], s.markers.next, s.rec.hostile)
	s.scriptMu.Lock()
	for _, role := range refactor.AllRoles() {
		s.fake.Set(role, sc.answers[role]...)
	}
	s.scenarios[sc.name]++
	s.scriptMu.Unlock()
	return wire.RefactorRequest{ClassName: t.Class, MethodName: t.Selector, IsClassMethod: t.ClassSide}
}

// follow polls a background run's row until it ends.
func (s *soak) follow(ctx context.Context, rng *rand.Rand, step int64, client int, id string) {
	if id == "" {
		return
	}
	for range 60 {
		time.Sleep(time.Duration(200+rng.IntN(400)) * time.Millisecond)
		a := s.exchange(ctx, step, client, call{kind: "show_poll", method: http.MethodGet, path: "/api/v1/refactorings/" + id})
		var row refactor.Run
		if a.Status != http.StatusOK || json.Unmarshal(a.body, &row) != nil || !row.Status.Unsettled() && row.Status != refactor.StatusRunning {
			return
		}
	}
}

// cancelRun starts a run in the background and cancels it a moment later.
func (s *soak) cancelRun(ctx context.Context, rng *rand.Rand, step int64, client int) {
	req := s.scriptRun(rng)
	body, _ := json.Marshal(req)
	a := s.exchange(ctx, step, client, call{kind: "run_async", method: http.MethodPost, path: "/api/v1/refactor", body: body, header: map[string]string{"Prefer": "respond-async"}})
	id := a.header.Get("X-Refactoring-ID")
	if a.Status != http.StatusAccepted || id == "" {
		id = s.someID(rng)
	}
	time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
	s.exchange(ctx, step, client, call{kind: "cancel", method: http.MethodPost, path: "/api/v1/refactorings/" + id + "/cancel"})
}

// revertRun reverts the newest release of a method and reads what the
// image holds right after; it runs with every other client held off and
// the slot free, so nothing else writes the image in between.
func (s *soak) revertRun(ctx context.Context, rng *rand.Rand, step int64, client int) {
	if s.waitIdle(ctx, 30*time.Second) != nil {
		return
	}
	var page refactor.Page
	if s.get(ctx, "/api/v1/refactorings?outcome=released&limit=50", &page) != nil {
		return
	}
	newest := map[string]refactor.Run{}
	var order []string
	for _, r := range page.Runs {
		key := methodKey(r.ClassName, r.IsClassMethod, r.Selector)
		if _, seen := newest[key]; !seen && r.Kind == refactor.RunKindRefactor {
			newest[key] = r
			order = append(order, key)
		}
	}
	if len(order) == 0 {
		return
	}
	target := newest[order[rng.IntN(len(order))]]
	a := s.exchange(ctx, step, client, call{kind: "revert", method: http.MethodPost, path: "/api/v1/refactorings/" + target.ID + "/revert"})
	if a.Status != http.StatusOK {
		return
	}
	key := methodKey(target.ClassName, target.IsClassMethod, target.Selector)
	img, err := imageSources(s.image)
	got := img[key]
	if err != nil {
		got = "reading the image: " + err.Error()
	}
	s.rec.revert(RevertCheck{RequestID: a.ID, Step: step, Method: key, Want: normalize(target.OriginalSource), Got: got})
}

// raw sends head (and then body, in pieces, pausing between them) on a
// connection of its own, and reads the answer, if any, within limit.
func (s *soak) raw(ctx context.Context, step int64, client int, kind string, head string, pieces []string, pause, limit time.Duration) {
	id := fmt.Sprintf("soak-%d-%d", s.seed, step)
	q := Request{ID: id, Step: step, Client: client, Kind: kind, Method: http.MethodPost, Path: "/api/v1/refactor", Start: time.Now()}
	defer func() { q.End = time.Now(); s.rec.request(q) }()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		q.Err = err.Error()
		return
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(limit))
	if _, err := io.WriteString(conn, strings.ReplaceAll(head, "{id}", id)); err != nil {
		q.Err = err.Error()
		return
	}
	var writeErr error
	for _, p := range pieces {
		time.Sleep(pause)
		if _, writeErr = io.WriteString(conn, p); writeErr != nil {
			break // the answer may be there already: read it, as curl does
		}
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil && writeErr != nil {
		err = fmt.Errorf("%w (and reading the answer: %v)", writeErr, err)
	}
	if err != nil {
		if kind == "stalled_headers" && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
			return // closed without an answer: the request never began
		}
		q.Err = err.Error()
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	q.Status = resp.StatusCode
	if err != nil {
		q.Err = err.Error()
		return
	}
	s.judge(&q, resp.Header, body)
}

const missingRun = `{"class_name":"SoakNoSuchClass","method_name":"foo","dry_run":true}`

func rawHead(contentLength int) string {
	return "POST /api/v1/refactor HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-ID: {id}\r\nAuthorization: Bearer " + apiKey +
		"\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + fmt.Sprint(contentLength) + "\r\n\r\n"
}

// slowClient sends its body in four pieces within the body timeout: it
// must get its whole answer.
func (s *soak) slowClient(ctx context.Context, _ *rand.Rand, step int64, client int) {
	b := missingRun
	q := len(b) / 4
	s.raw(ctx, step, client, "slow_client", rawHead(len(b)), []string{b[:q], b[q : 2*q], b[2*q : 3*q], b[3*q:]}, 250*time.Millisecond, 15*time.Second)
}

// stalledBody sends part of its body and stops: the service answers 408
// once the body timeout passes, and closes.
func (s *soak) stalledBody(ctx context.Context, _ *rand.Rand, step int64, client int) {
	s.raw(ctx, step, client, "stalled_body", rawHead(len(missingRun)+50), []string{missingRun[:10]}, 0, 15*time.Second)
}

// stalledHeaders never ends its headers: the service closes the
// connection once the header timeout passes.
func (s *soak) stalledHeaders(ctx context.Context, _ *rand.Rand, step int64, client int) {
	s.raw(ctx, step, client, "stalled_headers", "POST /api/v1/refactor HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", nil, 0, 15*time.Second)
}
