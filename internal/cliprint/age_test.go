package cliprint

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestHumanDuration(t *testing.T) {
	const day = 24 * time.Hour
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-3 * time.Second, "<invalid>"},
		{-1500 * time.Millisecond, "0s"},
		{0, "0s"},
		{59 * time.Second, "59s"},
		{119 * time.Second, "119s"},
		{2 * time.Minute, "2m"},
		{3*time.Minute + 20*time.Second, "3m20s"},
		{9*time.Minute + 59*time.Second, "9m59s"},
		{10*time.Minute + 30*time.Second, "10m"},
		{179 * time.Minute, "179m"},
		{3 * time.Hour, "3h"},
		{7*time.Hour + 59*time.Minute, "7h59m"},
		{8*time.Hour + 30*time.Minute, "8h"},
		{47 * time.Hour, "47h"},
		{2 * day, "2d"},
		{3*day + 5*time.Hour, "3d5h"},
		{8 * day, "8d"},
		{729 * day, "729d"},
		{730 * day, "2y"},
		{3*365*day + 20*day, "3y20d"},
		{8 * 365 * day, "8y"},
		{20 * 365 * day, "20y"},
	} {
		assert.Equal(t, tc.want, HumanDuration(tc.d), "HumanDuration(%v)", tc.d)
	}
}

func TestAgeUnknownForZeroTime(t *testing.T) {
	assert.Equal(t, "<unknown>", Age(time.Time{}, time.Now()))
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	assert.Equal(t, "90s", Age(now.Add(-90*time.Second), now))
}
