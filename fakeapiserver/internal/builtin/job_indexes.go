package builtin

import (
	"fmt"
	"strconv"
	"strings"
)

// A Job's index lists, as status.completedIndexes, status.failedIndexes
// and a success policy's succeededIndexes hold them: intervals ("3" or
// "3-5") of indexes below spec.completions, separated by commas, in
// increasing order.

// indexInterval reads one interval of an index list, with the real
// server's error for a malformed one.
func indexInterval(s string, completions int64) (x, y int64, err error) {
	parts := strings.Split(s, "-")
	if len(parts) > 2 {
		return 0, 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", s)
	}
	bounds := make([]int64, len(parts))
	for i, part := range parts {
		n, err := strconv.Atoi(part)
		if err != nil {
			return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", part)
		}
		if int64(n) >= completions {
			return 0, 0, fmt.Errorf("too large index: %q", part)
		}
		bounds[i] = int64(n)
	}
	x, y = bounds[0], bounds[len(bounds)-1]
	if len(bounds) == 2 && x >= y {
		return 0, 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", x, y)
	}
	return x, y, nil
}

// indexesTotal reads an index list and returns how many indexes it
// holds.
func indexesTotal(s string, completions int64) (int64, error) {
	if s == "" {
		return 0, nil
	}
	var total int64
	last := int64(-1)
	for _, interval := range strings.Split(s, ",") {
		x, y, err := indexInterval(interval, completions)
		if err != nil {
			return 0, err
		}
		if last >= 0 && last >= x {
			return 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", last, x)
		}
		total += y - x + 1
		last = y
	}
	return total, nil
}

// indexesOverlap reports the first index two lists share, walking both
// in step as the real server does: it skips an interval it cannot read
// (the format check reports it) and assumes increasing order, so an
// unordered list may hide an overlap.
func indexesOverlap(completed, failed string, completions int64) error {
	if completed == "" || failed == "" {
		return nil
	}
	cs, fs := strings.Split(completed, ","), strings.Split(failed, ",")
	ci, fi := 0, 0
	cx, cy, cerr := indexInterval(cs[0], completions)
	fx, fy, ferr := indexInterval(fs[0], completions)
	for ci < len(cs) && fi < len(fs) {
		switch {
		case cerr != nil:
			if ci++; ci < len(cs) {
				cx, cy, cerr = indexInterval(cs[ci], completions)
			}
		case ferr != nil:
			if fi++; fi < len(fs) {
				fx, fy, ferr = indexInterval(fs[fi], completions)
			}
		case cx <= fy && fx <= cy:
			return fmt.Errorf("failedIndexes and completedIndexes overlap at index: %d", max(cx, fx))
		case cx <= fx:
			if ci++; ci < len(cs) {
				cx, cy, cerr = indexInterval(cs[ci], completions)
			}
		default:
			if fi++; fi < len(fs) {
				fx, fy, ferr = indexInterval(fs[fi], completions)
			}
		}
	}
	return nil
}
