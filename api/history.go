package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	refactor "pharo-refactor"
	"pharo-refactor/smalltalk"
	"pharo-refactor/store"
)

// History is the audit trail as the routes read it.
type History interface {
	List(ctx context.Context, q store.ListQuery) (store.Page, error)
	Get(ctx context.Context, id string) (store.Run, error)
}

// listRefactorings answers GET /api/v1/refactorings: newest first, filtered
// by class_name and outcome, paged by an opaque cursor.
func (s *Server) listRefactorings(c echo.Context) error {
	q, err := listQuery(c)
	if err != nil {
		return err
	}
	page, err := s.history.List(c.Request().Context(), q)
	switch {
	case errors.Is(err, store.ErrBadCursor):
		return badRequest(c, "the cursor is not one this service gave out")
	case errors.Is(err, store.ErrInvalid):
		return badRequest(c, err.Error())
	case err != nil:
		return refactor.Wrap(refactor.Internal, err, "listing refactorings")
	}
	if page.Runs == nil {
		page.Runs = []store.Run{}
	}
	return c.JSON(http.StatusOK, page)
}

func listQuery(c echo.Context) (store.ListQuery, error) {
	q := store.ListQuery{ClassName: c.QueryParam("class_name"), Status: store.Status(c.QueryParam("outcome")), Cursor: c.QueryParam("cursor")}
	if q.ClassName != "" && !smalltalk.IsClassName(q.ClassName) {
		return q, badRequest(c, "class_name is not a Smalltalk class name")
	}
	if q.Status != "" && !q.Status.Valid() {
		return q, badRequest(c, "outcome must be one of the run statuses (released, proposed, failed, rolled_back, reverted, …)")
	}
	if l := c.QueryParam("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > store.MaxLimit {
			return q, badRequest(c, "limit must be a whole number from 1 to "+strconv.Itoa(store.MaxLimit))
		}
		q.Limit = n
	}
	return q, nil
}

func badRequest(c echo.Context, detail string) error {
	p := newProblem(c, refactor.Errorf(refactor.InvalidRequest, "%s", detail))
	p.Status = http.StatusBadRequest
	return &problemError{p}
}

// getRefactoring answers GET /api/v1/refactorings/{id}: everything in the row.
func (s *Server) getRefactoring(c echo.Context) error {
	run, err := s.history.Get(c.Request().Context(), c.Param("id"))
	if errors.Is(err, store.ErrNotFound) {
		return refactor.Errorf(refactor.NotFound, "no refactoring with id %q", c.Param("id"))
	}
	if err != nil {
		return refactor.Wrap(refactor.Internal, err, "reading refactoring")
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
	run, err := slot.Revert(c.Request().Context(), c.Param("id"), requestID(c))
	if err != nil {
		p := newProblem(c, err)
		if run.ID != "" {
			p.ID = run.ID
		}
		return &problemError{p}
	}
	return c.JSON(http.StatusOK, run)
}
