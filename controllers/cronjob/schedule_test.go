package cronjob

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestScheduleNext reads schedules of every form and checks when each
// fires next after a Monday morning.
func TestScheduleNext(t *testing.T) {
	from := at("2026-01-05T09:17:30Z") // a Monday
	for _, tc := range []struct{ spec, want string }{
		{"* * * * *", "2026-01-05T09:18:00Z"},
		{"*/15 * * * *", "2026-01-05T09:30:00Z"},
		{"5 * * * *", "2026-01-05T10:05:00Z"},
		{"0 9-17/4 * * *", "2026-01-05T13:00:00Z"},
		{"30 8 * * MON-fri", "2026-01-06T08:30:00Z"},
		{"0 0 1 * *", "2026-02-01T00:00:00Z"},
		{"0 0 * FEB *", "2026-02-01T00:00:00Z"},
		{"0 0 13 * 5", "2026-01-09T00:00:00Z"},    // day of month or Friday
		{"0 0 ? * sun", "2026-01-11T00:00:00Z"},   // "?" is any day
		{"0 0 */2 * sun", "2026-01-07T00:00:00Z"}, // a stepped day is no star: odd days or Sundays
		{"10,20,40 9 * * *", "2026-01-05T09:20:00Z"},
		{"0 12/6 * * *", "2026-01-05T12:00:00Z"},
		{"0 0 29 2 *", "2028-02-29T00:00:00Z"},
		{"@hourly", "2026-01-05T10:00:00Z"},
		{"@daily", "2026-01-06T00:00:00Z"},
		{"@midnight", "2026-01-06T00:00:00Z"},
		{"@weekly", "2026-01-11T00:00:00Z"},
		{"@monthly", "2026-02-01T00:00:00Z"},
		{"@yearly", "2027-01-01T00:00:00Z"},
		{"@ANNUALLY", "2027-01-01T00:00:00Z"},
	} {
		s, err := Parse(tc.spec)
		require.NoError(t, err, tc.spec)
		assert.Equal(t, at(tc.want), s.Next(from).UTC(), tc.spec)
	}
}

// TestScheduleNeverFires: a date that does not exist has no next time.
func TestScheduleNeverFires(t *testing.T) {
	s, err := Parse("0 0 30 2 *")
	require.NoError(t, err)
	assert.True(t, s.Next(at("2026-01-01T00:00:00Z")).IsZero())
}

// TestScheduleInTimeZone fires at 02:30 New York time, which does not
// exist on the day clocks move forward (that day is skipped), and at
// 01:30, which happens twice on the day they move back (it fires twice).
func TestScheduleInTimeZone(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no time zone database on this machine: " + err.Error())
	}
	s, err := Parse("30 2 * * *")
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 1, 5, 2, 30, 0, 0, ny), s.Next(time.Date(2026, 1, 4, 12, 0, 0, 0, ny)))
	// 2026-03-08: 02:00 becomes 03:00.
	got := s.Next(time.Date(2026, 3, 7, 12, 0, 0, 0, ny))
	assert.Equal(t, time.Date(2026, 3, 9, 2, 30, 0, 0, ny), got)
	// 2026-11-01: 01:00–02:00 happens twice.
	s, err = Parse("30 1 * * *")
	require.NoError(t, err)
	first := s.Next(time.Date(2026, 10, 31, 12, 0, 0, 0, ny))
	assert.Equal(t, time.Date(2026, 11, 1, 1, 30, 0, 0, ny), first)
	second := s.Next(first)
	assert.Equal(t, time.Hour, second.Sub(first), "the second 01:30, an hour later")
	assert.Equal(t, time.Date(2026, 11, 2, 1, 30, 0, 0, ny), s.Next(second))
}

// TestParseRefuses lists schedules a CronJob cannot have, each with its
// error.
func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ spec, err string }{
		{"", "expected exactly 5 fields, found 0"},
		{"* * * *", "expected exactly 5 fields, found 4"},
		{"* * * * * *", "expected exactly 5 fields, found 6"},
		{"60 * * * *", "minute value 60 out of range [0, 59]"},
		{"* 24 * * *", "hour value 24 out of range [0, 23]"},
		{"* * 0 * *", "day of month value 0 out of range [1, 31]"},
		{"* * * 13 *", "month value 13 out of range [1, 12]"},
		{"* * * * 7", "day of week value 7 out of range [0, 6]"},
		{"* * * * MOO", `failed to parse "MOO" in day of week field`},
		{"5-1 * * * *", "beginning of range (5) beyond end of range (1)"},
		{"*/0 * * * *", `invalid step "0"`},
		{"*/x * * * *", `invalid step "x"`},
		{"1-2-3 * * * *", `failed to parse "2-3"`},
		{"@every 5m", "unrecognized descriptor: @every 5m"},
		{"TZ=UTC * * * * *", "use the timeZone field"},
		{"CRON_TZ=UTC * * * * *", "use the timeZone field"},
		{strings.Repeat("1,", 600) + "1 * * * *", "longer than 1024"},
	} {
		_, err := Parse(tc.spec)
		require.Error(t, err, tc.spec)
		assert.Contains(t, err.Error(), tc.err, tc.spec)
	}
}

// FuzzParse feeds Parse arbitrary schedules: it returns an error or a
// schedule, never panics, and the schedule's next time is after the
// start, on a minute, or zero.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"* * * * *", "*/5 1-3 ? JAN-mar 1,3,5", "@weekly", "0 0 29 2 *", "1/7 2/3 4/5 6/7 0/2", "a b c d e", "60 * * * *"} {
		f.Add(s)
	}
	from := at("2026-01-05T09:17:30Z")
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := Parse(spec)
		if err != nil {
			return
		}
		next := s.Next(from)
		if next.IsZero() {
			return
		}
		if !next.After(from) || next.Second() != 0 || next.Nanosecond() != 0 {
			t.Fatalf("%q: next %v after %v", spec, next, from)
		}
	})
}
