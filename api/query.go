package api

import (
	"net/url"
	"sort"
	"strconv"

	"github.com/labstack/echo/v4"
)

// uniqueQuery refuses a query string that names a parameter more than
// once (400 naming it) or cannot be read. Echo reads the first value of a
// repeated parameter, a gateway in front may read the last: the two would
// act on different requests, as with a repeated JSON key.
func (s *Server) uniqueQuery(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		raw := c.Request().URL.RawQuery
		if raw == "" {
			return next(c)
		}
		values, err := url.ParseQuery(raw)
		if err != nil {
			return badRequest("the query string cannot be read: " + err.Error())
		}
		var repeated []string
		for name, v := range values {
			if len(v) > 1 {
				repeated = append(repeated, name)
			}
		}
		if len(repeated) > 0 {
			sort.Strings(repeated)
			name := repeated[0]
			return badRequest("query parameter " + strconv.Quote(name) + " is given " + strconv.Itoa(len(values[name])) + " times; give it once")
		}
		return next(c)
	}
}
