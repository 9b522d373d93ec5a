package store

import "time"

// timeLayout is fixed-width so that stored times sort as text.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}

// parseStored reads a time column: SQLite keeps timeLayout's text,
// PostgreSQL a timestamptz that database/sql hands over as RFC 3339 with
// as many fractional digits as it needs (none for a whole second).
func parseStored(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}
