package request

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/contextd/contextd/cerrors"
)

// dateRe matches the ISO 8601 forms Python's datetime.fromisoformat reads.
var dateRe = regexp.MustCompile(`^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d+)?)?)?)?)?$`)

// weekDateRe matches an ISO week date (2025-W48, 2025-W48-6, 2025W486),
// which fromisoformat also reads.
var weekDateRe = regexp.MustCompile(`^(\d{4})-?W(\d{2})(?:-?([1-7]))?(.*)$`)

// weekToCalendar rewrites a leading ISO week date as a calendar date, so
// the rest of the parser sees one shape.
func weekToCalendar(v string) (string, bool) {
	m := weekDateRe.FindStringSubmatch(v)
	if m == nil {
		return v, true
	}
	y, _ := strconv.Atoi(m[1])
	w, _ := strconv.Atoi(m[2])
	d := 1
	if m[3] != "" {
		d, _ = strconv.Atoi(m[3])
	}
	jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC)
	week1 := jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
	_, maxWeek := time.Date(y, 12, 28, 0, 0, 0, 0, time.UTC).ISOWeek()
	if w < 1 || w > maxWeek {
		return v, false
	}
	return week1.AddDate(0, 0, (w-1)*7+d-1).Format("2006-01-02") + m[4], true
}

var subMinuteOffset = regexp.MustCompile(`[+-]\d{2}:?\d{2}:?\d{2}`)

// Date is one parsed date parameter: its UTC instant and canonical text
// (the form the reference prints in a range error).
type Date struct {
	Time  time.Time
	Canon string
}

// ParseDate parses the date parameter param. A date-only value means the
// start of its day, or for an end bound (end) its last microsecond; a
// value without an offset is UTC. An end bound given to the second without
// a fraction means the last microsecond of that second: timestamps are
// stored to the microsecond but shown to the second (WireTime), so an
// entry's own created_at used as both bounds must find it.
func ParseDate(param, v string, end bool) (*Date, error) {
	if v == "" {
		return nil, cerrors.Invalidf(`Invalid %s format: "%s". Use ISO 8601 format (e.g., "2025-11-29" or "2025-11-29T10:00:00")`, param, v)
	}
	bad := func() error {
		return cerrors.Invalidf(`Invalid %s format: "%s". Use ISO 8601 format (e.g., "2025-11-29" or "2025-11-29T10:00:00")`, param, v)
	}
	cal, ok := weekToCalendar(v)
	if !ok {
		return nil, bad()
	}
	m := dateRe.FindStringSubmatch(cal)
	if m == nil {
		return nil, bad()
	}
	if m[8] != "" && m[8] != "Z" && subMinuteOffset.MatchString(m[8]) {
		return nil, cerrors.Invalidf(`Invalid %s format: "%s". A timezone offset with sub-minute precision (seconds or a fractional part) is not supported: SQLite evaluates it to NULL (silently matching zero rows) while PostgreSQL accepts it, so it is rejected for cross-backend parity. Use a whole-minute offset (e.g. "+05:30").`, param, v)
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	y, mo, d := num(m[1]), num(m[2]), num(m[3])
	dateOnly := m[4] == ""
	hh, mm, ss, ns := num(m[4]), num(m[5]), num(m[6]), 0
	if m[7] != "" {
		frac := (m[7] + "000000000")[:9]
		ns = num(frac)
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 59 {
		return nil, bad()
	}
	loc := time.UTC
	if z := m[8]; z != "" && z != "Z" {
		digits := strings.ReplaceAll(z[1:], ":", "")
		oh, om := num(digits[:2]), 0
		if len(digits) >= 4 {
			om = num(digits[2:4])
		}
		if oh > 23 || om > 59 {
			return nil, bad()
		}
		off := oh*3600 + om*60
		if z[0] == '-' {
			off = -off
		}
		loc = time.FixedZone("", off)
	}
	t := time.Date(y, time.Month(mo), d, hh, mm, ss, ns, loc)
	if t.Day() != d || int(t.Month()) != mo {
		return nil, bad()
	}
	canon := t.Format("2006-01-02")
	if end && !dateOnly && m[7] == "" {
		t = t.Add(time.Second - time.Microsecond)
	}
	if dateOnly && end {
		t = t.Add(24*time.Hour - time.Microsecond)
		canon += "T23:59:59.999999"
	} else if !dateOnly {
		canon = t.Format("2006-01-02T15:04:05")
		if us := t.Nanosecond() / 1000; us != 0 {
			canon += fmt.Sprintf(".%06d", us)
		}
		if m[8] != "" {
			canon += t.Format("-07:00")
		}
	}
	return &Date{Time: t.UTC(), Canon: canon}, nil
}

// ParseDateRange parses start_date and end_date (end-of-day for a
// date-only end) and checks their order. An empty value is absent (nil).
func ParseDateRange(start, end string) (*time.Time, *time.Time, error) {
	var s, e *Date
	var err error
	if start != "" {
		if s, err = ParseDate("start_date", start, false); err != nil {
			return nil, nil, err
		}
	}
	if end != "" {
		if e, err = ParseDate("end_date", end, true); err != nil {
			return nil, nil, err
		}
	}
	if s != nil && e != nil && s.Time.After(e.Time) {
		return nil, nil, cerrors.Invalidf("Invalid date range: start_date (%s) is after end_date (%s)", s.Canon, e.Canon)
	}
	var st, et *time.Time
	if s != nil {
		st = &s.Time
	}
	if e != nil {
		et = &e.Time
	}
	return st, et, nil
}
