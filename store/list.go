package store

import (
	"context"
	"encoding/base64"
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
	"strings"
)

// List returns runs newest first (created_at, then id, descending) with
// keyset pagination: the cursor names the last row returned, so rows created
// while a client pages through are neither repeated nor skipped. Returns
// ErrBadCursor for a cursor List did not produce, ErrInvalid for an unknown
// status or a negative limit.
func (s *Store) List(ctx context.Context, q refactor.ListQuery) (refactor.Page, error) {
	limit, err := pageSize(q)
	if err != nil {
		return refactor.Page{}, refactor.Wrap(refactor.InvalidRequest, err, "the query is out of range")
	}
	sqlText, args, err := listSQL(q, limit)
	if err != nil {
		return refactor.Page{}, refactor.Wrap(refactor.InvalidRequest, err, "the cursor is not one this service gave out")
	}
	runs, err := s.query(ctx, sqlText, args...)
	if err != nil {
		return refactor.Page{}, fmt.Errorf("store: list runs: %w", s.d.classify(err))
	}
	return page(runs, limit), nil
}

func pageSize(q refactor.ListQuery) (int, error) {
	if q.Status != "" && !q.Status.Valid() {
		return 0, fmt.Errorf("%w: status %q", ErrInvalid, q.Status)
	}
	switch {
	case q.Limit < 0:
		return 0, fmt.Errorf("%w: limit %d", ErrInvalid, q.Limit)
	case q.Limit == 0:
		return refactor.DefaultLimit, nil
	case q.Limit > refactor.MaxLimit:
		return refactor.MaxLimit, nil
	}
	return q.Limit, nil
}

// listSQL asks for one row more than the page: its presence says whether
// there is a next page without a COUNT.
func listSQL(q refactor.ListQuery, limit int) (string, []any, error) {
	var where []string
	var args []any
	if q.ClassName != "" {
		where, args = append(where, "class_name = ?"), append(args, q.ClassName)
	}
	if q.Status != "" {
		where, args = append(where, "status = ?"), append(args, string(q.Status))
	}
	if q.Worker != "" {
		where, args = append(where, "worker = ?"), append(args, q.Worker)
	}
	if q.Cursor != "" {
		created, id, err := decodeCursor(q.Cursor)
		if err != nil {
			return "", nil, err
		}
		where = append(where, "(created_at < ? OR (created_at = ? AND id < ?))")
		args = append(args, created, created, id)
	}
	text := "SELECT " + listColumns + " FROM runs"
	if len(where) > 0 {
		text += " WHERE " + strings.Join(where, " AND ")
	}
	text += " ORDER BY created_at DESC, id DESC LIMIT ?"
	return text, append(args, limit+1), nil
}

// listColumns are runColumns without the rounds (NULL in their place): a
// page of runs stays small, and a reader who wants a run's rounds reads
// that run.
const listColumns = rowColumns + ", NULL AS rounds"

func page(runs []refactor.Run, limit int) refactor.Page {
	if len(runs) <= limit {
		return refactor.Page{Runs: nonNil(runs)}
	}
	runs = runs[:limit]
	last := runs[limit-1]
	return refactor.Page{Runs: runs, NextCursor: encodeCursor(formatTime(last.CreatedAt), last.ID)}
}

// nonNil makes an empty page encode as [] rather than null.
func nonNil(runs []refactor.Run) []refactor.Run {
	if runs == nil {
		return []refactor.Run{}
	}
	return runs
}

// cursorSep cannot occur in a formatted time, so the id may contain anything.
const cursorSep = "|"

func encodeCursor(created, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(created + cursorSep + id))
}

func decodeCursor(c string) (created, id string, err error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrBadCursor, err)
	}
	created, id, ok := strings.Cut(string(b), cursorSep)
	if !ok || id == "" {
		return "", "", fmt.Errorf("%w: missing id", ErrBadCursor)
	}
	// Only the canonical form compares correctly as text with created_at.
	t, err := parseTime(created)
	if err != nil || formatTime(t) != created {
		return "", "", fmt.Errorf("%w: bad time %q", ErrBadCursor, created)
	}
	return created, id, nil
}
