package cronjob

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Schedule is a parsed cron schedule: the minutes, hours, days of the
// month, months and weekdays it fires on, each a bit set.
type Schedule struct {
	minute, hour, dom, month, dow uint64
	// domStar and dowStar record a day field written "*" or "?": when one
	// of them is, a day must match both fields; when neither is, either.
	domStar, dowStar bool
}

// field is the range and the names of one of the five fields.
type field struct {
	name     string
	min, max int
	names    map[string]int
}

var (
	minuteField = field{name: "minute", min: 0, max: 59}
	hourField   = field{name: "hour", min: 0, max: 23}
	domField    = field{name: "day of month", min: 1, max: 31}
	monthField  = field{name: "month", min: 1, max: 12, names: map[string]int{
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}}
	dowField = field{name: "day of week", min: 0, max: 6, names: map[string]int{
		"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}}
)

// descriptors are the @-shorthands of a schedule.
var descriptors = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

// maxScheduleLength bounds what Parse reads: no schedule a person writes
// is longer.
const maxScheduleLength = 1024

// Parse reads a standard five-field cron schedule ("minute hour
// day-of-month month day-of-week"): each field "*" (or "?"),
// a value, a range "a-b", a step "*/n", "a-b/n" or "a/n" (from a to the
// end), or a comma-separated list of those; months and weekdays also by
// their three-letter English names, in any case. "@yearly",
// "@annually", "@monthly", "@weekly", "@daily", "@midnight" and
// "@hourly" stand for their schedules. A schedule naming a time zone
// (TZ= or CRON_TZ=) is refused: the CronJob's timeZone field says that.
func Parse(spec string) (*Schedule, error) {
	if len(spec) > maxScheduleLength {
		return nil, fmt.Errorf("schedule is longer than %d characters", maxScheduleLength)
	}
	spec = strings.TrimSpace(spec)
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		return nil, fmt.Errorf("a time zone in the schedule is not supported: use the timeZone field")
	}
	if strings.HasPrefix(spec, "@") {
		full, ok := descriptors[strings.ToLower(spec)]
		if !ok {
			return nil, fmt.Errorf("unrecognized descriptor: %s", spec)
		}
		spec = full
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return nil, fmt.Errorf("expected exactly 5 fields, found %d: %s", len(fields), spec)
	}
	var s Schedule
	var err error
	if s.minute, _, err = parseField(fields[0], minuteField); err != nil {
		return nil, err
	}
	if s.hour, _, err = parseField(fields[1], hourField); err != nil {
		return nil, err
	}
	if s.dom, s.domStar, err = parseField(fields[2], domField); err != nil {
		return nil, err
	}
	if s.month, _, err = parseField(fields[3], monthField); err != nil {
		return nil, err
	}
	if s.dow, s.dowStar, err = parseField(fields[4], dowField); err != nil {
		return nil, err
	}
	return &s, nil
}

// parseField reads one field: its bit set, and whether it is a bare
// "*" or "?" (a step over the whole range is not).
func parseField(text string, f field) (uint64, bool, error) {
	var set uint64
	star := false
	for _, part := range strings.Split(text, ",") {
		bitsOf, isStar, err := parseRange(part, f)
		if err != nil {
			return 0, false, err
		}
		set |= bitsOf
		star = star || isStar
	}
	return set, star, nil
}

// parseRange reads one element of a list: "*", "?", "a", "a-b", each
// optionally followed by "/step".
func parseRange(text string, f field) (uint64, bool, error) {
	rangePart, stepPart, hasStep := strings.Cut(text, "/")
	var lo, hi int
	star := false
	switch {
	case rangePart == "*" || rangePart == "?":
		lo, hi, star = f.min, f.max, true
	default:
		first, last, isRange := strings.Cut(rangePart, "-")
		var err error
		if lo, err = value(first, f); err != nil {
			return 0, false, err
		}
		hi = lo
		switch {
		case isRange:
			if hi, err = value(last, f); err != nil {
				return 0, false, err
			}
		case hasStep:
			hi = f.max // "a/n" runs from a to the end of the range
		}
	}
	step := 1
	if hasStep {
		n, err := strconv.Atoi(stepPart)
		if err != nil || n <= 0 {
			return 0, false, fmt.Errorf("invalid step %q in %s field", stepPart, f.name)
		}
		step = n
		if step > 1 {
			star = false
		}
	}
	if lo > hi {
		return 0, false, fmt.Errorf("beginning of range (%d) beyond end of range (%d) in %s field: %s", lo, hi, f.name, text)
	}
	var set uint64
	for v := lo; v <= hi; v += step {
		set |= 1 << uint(v)
	}
	return set, star, nil
}

// value reads a number or a name of field f and checks its bounds.
func value(text string, f field) (int, error) {
	if v, ok := f.names[strings.ToLower(text)]; ok {
		return v, nil
	}
	v, err := strconv.Atoi(text)
	if err != nil || len(text) > 3 {
		return 0, fmt.Errorf("failed to parse %q in %s field", text, f.name)
	}
	if v < f.min || v > f.max {
		return 0, fmt.Errorf("%s value %d out of range [%d, %d]", f.name, v, f.min, f.max)
	}
	return v, nil
}

// has reports whether bit v is set.
func has(set uint64, v int) bool { return set&(1<<uint(v)) != 0 }

// dayMatches reports whether the day of t is one the schedule fires on.
func (s *Schedule) dayMatches(t time.Time) bool {
	dom, dow := has(s.dom, t.Day()), has(s.dow, int(t.Weekday()))
	if s.domStar || s.dowStar {
		return dom && dow
	}
	return dom || dow
}

// searchYears is how far ahead Next looks before it gives up: a
// schedule such as "0 0 30 2 *" never fires.
const searchYears = 5

// Next returns the first time after t, to the minute, at which the
// schedule fires, read in t's location; the zero time if there is none
// within five years. Times are wall-clock times of the location: one
// that does not exist on a day (clocks moving forward) is skipped that
// day, one that exists twice (clocks moving back) fires both times.
func (s *Schedule) Next(t time.Time) time.Time {
	if s.minute == 0 || s.hour == 0 || s.dom == 0 || s.month == 0 || s.dow == 0 {
		return time.Time{}
	}
	loc := t.Location()
	t = t.Add(time.Minute - time.Duration(t.Second())*time.Second - time.Duration(t.Nanosecond()))
	limit := t.Year() + searchYears
	for t.Year() <= limit {
		switch {
		case !has(s.month, int(t.Month())):
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc)
		case !s.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
		case !has(s.hour, t.Hour()):
			next := time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, loc)
			if !next.After(t) { // a clock moved back: step past the repeat
				next = t.Add(time.Hour).Truncate(time.Hour)
			}
			t = next
		case !has(s.minute, t.Minute()):
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}
