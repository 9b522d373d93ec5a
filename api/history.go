package api

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/labstack/echo/v4"

	refactor "github.com/pharo-refactor/refactord"
)

// listRefactorings answers GET /api/v1/refactorings: newest first, filtered
// by class_name and outcome, paged by an opaque cursor.
func (s *Server) listRefactorings(c echo.Context) error {
	q, err := listQuery(c)
	if err != nil {
		return err
	}
	page, err := s.history.List(c.Request().Context(), q)
	if refactor.IsKind(err, refactor.InvalidRequest) {
		return malformed(err) // the query could not be used (a cursor we did not give out)
	}
	if err != nil {
		return fmt.Errorf("listing refactorings: %w", err)
	}
	if page.Runs == nil {
		page.Runs = []refactor.Run{}
	}
	return c.JSON(http.StatusOK, page)
}

func listQuery(c echo.Context) (refactor.ListQuery, error) {
	q := refactor.ListQuery{ClassName: c.QueryParam("class_name"), Status: refactor.Status(c.QueryParam("outcome")),
		Worker: c.QueryParam("worker"), Cursor: c.QueryParam("cursor")}
	if len(q.Worker) > maxWorkerBytes || strings.ContainsFunc(q.Worker, unicode.IsControl) {
		return q, badRequest("worker must be a worker's id (WORKER_ID): at most " + strconv.Itoa(maxWorkerBytes) + " bytes, no control characters")
	}
	if q.ClassName != "" && !refactor.IsClassName(q.ClassName) {
		return q, badRequest("class_name is not a Smalltalk class name")
	}
	if q.Status != "" && !q.Status.Valid() {
		return q, badRequest("outcome must be one of the run statuses (released, proposed, failed, rolled_back, reverted, …)")
	}
	if l := c.QueryParam("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > refactor.MaxLimit {
			return q, badRequest("limit must be a whole number from 1 to " + strconv.Itoa(refactor.MaxLimit))
		}
		q.Limit = n
	}
	return q, nil
}

// maxWorkerBytes bounds the worker filter (a WORKER_ID).
const maxWorkerBytes = 200

func badRequest(detail string) error {
	return malformed(refactor.Errorf(refactor.InvalidRequest, "%s", detail))
}

// getRefactoring answers GET /api/v1/refactorings/{id}: everything in the row.
func (s *Server) getRefactoring(c echo.Context) error {
	run, err := s.history.Get(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, run)
}

// revertRefactoring answers POST /api/v1/refactorings/{id}/revert. It takes
// the run slot like a refactoring: one change to the image at a time.
func (s *Server) revertRefactoring(c echo.Context) error {
	slot, err := s.reserve()
	if err != nil {
		return s.refusal(c, err)
	}
	run, err := slot.Revert(callersTrace(c.Request().Context(), c.Request()), c.Param("id"), requestID(c))
	if err != nil {
		p := s.problem(c, err)
		if run.ID != "" {
			p.ID = run.ID
		}
		return &problemError{p: p}
	}
	return c.JSON(http.StatusOK, run)
}
