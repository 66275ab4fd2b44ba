package reflector

import "strconv"

// ResourceVersions are opaque strings to a client, but every API server
// backed by etcd hands out integers that grow with every write. The
// reflector compares them only when both parse as unsigned integers, and
// treats anything else as "cannot tell", which never blocks an update.

// compareRV compares two resourceVersions numerically. ok is false when
// either does not parse as an unsigned integer.
func compareRV(a, b string) (cmp int, ok bool) {
	x, err := strconv.ParseUint(a, 10, 64)
	if err != nil {
		return 0, false
	}
	y, err := strconv.ParseUint(b, 10, 64)
	if err != nil {
		return 0, false
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

// olderRV reports whether a is known to be older than b: both are integers
// and a < b.
func olderRV(a, b string) bool {
	c, ok := compareRV(a, b)
	return ok && c < 0
}

// advancesRV reports whether the resume point may move from cur to next.
// It never moves back: between two integers only forward; an opaque next
// never replaces an integer cur (a server that numbers its versions sent
// something else); an empty next never replaces anything.
func advancesRV(cur, next string) bool {
	if next == "" {
		return false
	}
	if _, err := strconv.ParseUint(cur, 10, 64); err != nil {
		return true // cur is empty or opaque: nothing to compare with
	}
	c, ok := compareRV(next, cur)
	return ok && c >= 0
}

// isUint reports whether rv is an unsigned integer, as every etcd-backed
// server's resourceVersions are.
func isUint(rv string) bool {
	_, err := strconv.ParseUint(rv, 10, 64)
	return err == nil
}
