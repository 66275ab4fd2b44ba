package cliprint

import (
	"strconv"
	"time"
)

// HumanDuration renders an age the way kubectl's AGE column does: exact at
// first ("45s", "3m20s"), then coarser as the age grows ("5h", "12d",
// "3y20d"). Up to two seconds in the future reads as "0s" (clocks drift);
// further in the future is "<invalid>".
func HumanDuration(d time.Duration) string {
	seconds := int64(d / time.Second)
	switch {
	case seconds < -1:
		return "<invalid>"
	case seconds < 0:
		return "0s"
	case seconds < 2*60:
		return strconv.FormatInt(seconds, 10) + "s"
	}
	minutes := int64(d / time.Minute)
	switch {
	case minutes < 10:
		return withRest(minutes, "m", seconds%60, "s")
	case minutes < 3*60:
		return strconv.FormatInt(minutes, 10) + "m"
	}
	hours := int64(d / time.Hour)
	switch {
	case hours < 8:
		return withRest(hours, "h", minutes%60, "m")
	case hours < 48:
		return strconv.FormatInt(hours, 10) + "h"
	case hours < 8*24:
		return withRest(hours/24, "d", hours%24, "h")
	case hours < 2*365*24:
		return strconv.FormatInt(hours/24, 10) + "d"
	case hours < 8*365*24:
		return withRest(hours/24/365, "y", (hours/24)%365, "d")
	}
	return strconv.FormatInt(hours/24/365, 10) + "y"
}

// withRest renders "<big><bigUnit><small><smallUnit>", leaving out a zero
// small part: "3m20s", "3m".
func withRest(big int64, bigUnit string, small int64, smallUnit string) string {
	out := strconv.FormatInt(big, 10) + bigUnit
	if small != 0 {
		out += strconv.FormatInt(small, 10) + smallUnit
	}
	return out
}

// Age renders the age of something created at created, as seen at now;
// "<unknown>" when created is the zero time.
func Age(created, now time.Time) string {
	if created.IsZero() {
		return "<unknown>"
	}
	return HumanDuration(now.Sub(created))
}
