package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/wire"
)

// Runs are jobs (docs/api.md, "Runs are jobs"): a run outlives the request
// that started it. Every answer of a started run names it in its headers,
// so that a client that stops waiting (Pharo's Zinc gives up after 30 s; a
// real run takes 20–60 s) can follow it in the audit trail, and cancel it
// before its release.

// HeaderRefactoringID names the run a response belongs to.
const HeaderRefactoringID = "X-Refactoring-ID"

// runPath is where a run is followed: GET for its row, POST …/cancel.
func runPath(id string) string { return "/api/v1/refactorings/" + id }

func setRunHeaders(c echo.Context, id string) {
	h := c.Response().Header()
	h.Set(echo.HeaderLocation, runPath(id))
	h.Set(HeaderRefactoringID, id)
}

// prefersAsync reports whether the request says Prefer: respond-async
// (RFC 7240: preferences are comma-separated, case-insensitive tokens with
// optional values and parameters, in one or more Prefer headers).
func prefersAsync(h http.Header) bool {
	for _, line := range h.Values("Prefer") {
		for _, pref := range strings.Split(line, ",") {
			token, _, _ := strings.Cut(pref, ";")
			token, _, _ = strings.Cut(token, "=")
			if strings.EqualFold(strings.TrimSpace(token), "respond-async") {
				return true
			}
		}
	}
	return false
}

// answerAccepted answers 202 at once: the run's row as it stands (status
// running), its Location to poll.
func (s *Server) answerAccepted(c echo.Context, job refactor.Job) error {
	c.Response().Header().Set("Preference-Applied", "respond-async")
	row, err := s.history.Get(c.Request().Context(), job.ID())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, row)
}

// closeAtModelPhase is an observer that closes ch when the run is about to
// make its first model call (the review stage starts).
func closeAtModelPhase(ch chan struct{}) func(refactor.Event) {
	var once sync.Once
	return func(e refactor.Event) {
		if st, ok := e.Data.(refactor.StageEvent); ok && e.Type == refactor.EventStage && st.Name == refactor.StageReview {
			once.Do(func() { close(ch) })
		}
	}
}

// answerJSON answers a run in the original's wrapped form as one JSON
// body. A run that ends before its
// first model call (an unknown class or method, the image down) is
// answered with its own status. Once the run reaches its first model call
// the headers go out — 200, Location and X-Refactoring-ID — so that a
// client that gives up early still knows the run; the body follows when the
// run ends: the result, or a failure (RunFailureBody: success false, and
// the problem's code and status). While the run works, a blank is sent
// every KeepAlive (JSON allows whitespace before a value), so that a client
// reading with a socket timeout keeps reading. A client that leaves does
// not stop the run.
func (s *Server) answerJSON(c echo.Context, job refactor.Job, modelPhase <-chan struct{}) error {
	gone := c.Request().Context().Done()
	select {
	case <-job.Done():
		if !closed(modelPhase) {
			return s.answerResult(c, job)
		}
	case <-gone:
		s.clientLeft(c, job)
		return nil
	case <-modelPhase:
	}
	resp := c.Response()
	resp.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	resp.WriteHeader(http.StatusOK)
	resp.Flush()
	keepAlive := time.NewTicker(s.opts.KeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-job.Done():
			return s.writeLate(c, job)
		case <-gone:
			s.clientLeft(c, job)
			return nil
		case <-keepAlive.C:
			if _, err := resp.Write([]byte(" ")); err != nil {
				s.clientLeft(c, job)
				return nil
			}
			resp.Flush()
		}
	}
}

// answerWhenDone answers a run with its true status when it ends; a
// client that leaves meanwhile does not stop it.
func (s *Server) answerWhenDone(c echo.Context, job refactor.Job) error {
	select {
	case <-job.Done():
		return s.answerResult(c, job)
	case <-c.Request().Context().Done():
		s.clientLeft(c, job)
		return nil
	}
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// answerResult answers a run that ended before any header went out.
func (s *Server) answerResult(c echo.Context, job refactor.Job) error {
	res, err := job.Result()
	if err != nil {
		return s.runFailure(c, res, err)
	}
	return c.JSON(http.StatusOK, newRefactorBody(res))
}

// writeLate writes the body of a run whose 200 headers are out.
func (s *Server) writeLate(c echo.Context, job refactor.Job) error {
	res, err := job.Result()
	var body any
	if err == nil {
		body = newRefactorBody(res)
	} else {
		p := s.failureProblem(c, res, err)
		ref := refactor.MethodRef{}
		if res != nil {
			ref = res.Ref
		}
		body = wire.RunFailureBody{ClassName: ref.Class, MethodName: ref.Selector, Error: p.Detail, Problem: *p}
	}
	data, merr := json.Marshal(body)
	if merr != nil {
		s.log.Error("encoding a run's answer", zap.String("request_id", requestID(c)), zap.Error(merr))
		return nil // the status is out: nothing better can be said
	}
	if _, werr := c.Response().Write(data); werr != nil {
		s.clientLeft(c, job)
	}
	return nil
}

func (s *Server) clientLeft(c echo.Context, job refactor.Job) {
	s.log.Info("the client left; the run goes on, followed at its Location",
		zap.String("request_id", requestID(c)), zap.String("run_id", job.ID()))
}

// counted is job, counted in the metrics when it ends whoever waits for
// it (nobody, when the client left); its Done closes once it is counted,
// so no answer goes out before the metrics say what it says.
func (s *Server) counted(job refactor.Job) refactor.Job {
	c := &countedJob{Job: job, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		s.metrics.observe(job.Result())
	}()
	return c
}

type countedJob struct {
	refactor.Job
	done chan struct{}
}

func (c *countedJob) Done() <-chan struct{} { return c.done }

func (c *countedJob) Result() (*refactor.Result, error) {
	<-c.done
	return c.Job.Result()
}

// cancelRefactoring answers POST /api/v1/refactorings/{id}/cancel: the row
// once the run stopped (200, status canceled), or 409 not_cancelable when
// its release has begun or it has ended (the body says its status).
func (s *Server) cancelRefactoring(c echo.Context) error {
	row, err := s.pipe.Cancel(c.Request().Context(), c.Param("id"))
	if err != nil {
		p := s.problem(c, err)
		if row.ID != "" {
			p.ID, p.RunStatus = row.ID, string(row.Status)
		}
		return &problemError{p: p}
	}
	return c.JSON(http.StatusOK, row)
}
