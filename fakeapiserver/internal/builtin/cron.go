package builtin

import (
	"fmt"
	"strconv"
	"strings"
)

// cronFields are the bounds of the five fields of a standard schedule.
var cronFields = []struct {
	min, max int
	names    map[string]int
}{
	{0, 59, nil},
	{0, 23, nil},
	{1, 31, nil},
	{1, 12, map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}},
	{0, 6, map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}},
}

var cronDescriptors = map[string]bool{
	"@yearly": true, "@annually": true, "@monthly": true, "@weekly": true,
	"@daily": true, "@midnight": true, "@hourly": true,
}

// cronProblem returns why a CronJob schedule does not parse, worded as
// the real server's cron parser words it, or "".
func cronProblem(s string) string {
	if strings.Contains(s, "TZ") {
		return "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
	}
	if strings.HasPrefix(s, "@") {
		if cronDescriptors[s] || strings.HasPrefix(s, "@every ") {
			return ""
		}
		return "unrecognized descriptor: " + s
	}
	fields := strings.Fields(s)
	if len(fields) != 5 {
		return fmt.Sprintf("expected exactly 5 fields, found %d: [%s]", len(fields), strings.Join(fields, " "))
	}
	for i, f := range fields {
		for _, part := range strings.Split(f, ",") {
			if msg := cronPart(part, i); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// cronPart checks one comma-separated part of a schedule field.
func cronPart(part string, field int) string {
	b := cronFields[field]
	rng, step, hasStep := strings.Cut(part, "/")
	if hasStep {
		n, err := strconv.Atoi(step)
		if err != nil {
			return fmt.Sprintf("failed to parse int from %s: %v", step, err)
		}
		if n <= 0 {
			return fmt.Sprintf("step of range should be a positive number: %s", part)
		}
	}
	if rng == "*" || rng == "?" {
		return ""
	}
	lo, hi, isRange := strings.Cut(rng, "-")
	start, msg := cronValue(lo, b.names)
	if msg != "" {
		return msg
	}
	end := start
	if isRange {
		if end, msg = cronValue(hi, b.names); msg != "" {
			return msg
		}
	}
	switch {
	case start < b.min:
		return fmt.Sprintf("beginning of range (%d) below minimum (%d): %s", start, b.min, part)
	case end > b.max:
		return fmt.Sprintf("end of range (%d) above maximum (%d): %s", end, b.max, part)
	case start > end:
		return fmt.Sprintf("beginning of range (%d) beyond end of range (%d): %s", start, end, part)
	}
	return ""
}

// cronValue reads a number or a month or weekday name.
func cronValue(s string, names map[string]int) (int, string) {
	if n, ok := names[strings.ToLower(s)]; ok {
		return n, ""
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Sprintf("failed to parse int from %s: %v", s, err)
	}
	if n < 0 {
		return 0, fmt.Sprintf("negative number (%d) not allowed: %s", n, s)
	}
	return n, ""
}
