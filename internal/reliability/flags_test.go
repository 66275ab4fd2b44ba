package reliability_test

import (
	"flag"
	"time"
)

// The long form of the tests (make chaos) sets these; the short form (make
// test, go test ./...) runs with the defaults.
var (
	// long runs what is too slow for every run of the suite: the frame of
	// 128 MiB + 1 byte, the leak test with 1,000 informers at full size.
	long = flag.Bool("reliability.long", false, "run the long form of the reliability tests")
	// chaosDuration is how long the chaos test injects faults.
	chaosDuration = flag.Duration("chaos.duration", 3*time.Second, "how long the chaos test runs its fault plan")
	// chaosFlood runs the connection-flood and slow-client attackers
	// (attackers_test.go) against the server of every matrix row and of
	// the chaos test.
	chaosFlood = flag.Bool("chaos.flood", false, "flood every test server with idle, stalled and HTTP/2-preface connections")
	// chaosSeed seeds the fault plan; 0 picks one (printed).
	chaosSeed = flag.Uint64("chaos.seed", 0, "seed of the chaos test's fault plan (0: random, printed)")
)
