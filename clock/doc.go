// Package clock is kubecache's one source of time. Every component that
// waits on time — the rest client's rate limiter and credential refresh,
// the reflector's backoff, watch deadlines and resync, the informer's
// handler resyncs, the leader elector and the work queue — takes a Clock,
// so a test hands them all the same Fake and moves time by hand instead of
// sleeping.
//
// The package uses only the standard library and imports nothing from
// kubecache, so every other package may depend on it.
//
// Files:
//
//	clock.go  Clock, the interface a component reads time through, and Real,
//	          the wall clock every component uses when none is given
//	fake.go   Fake, a clock that stands still until Step or Set moves it,
//	          and WaitFor/WaitForTimers, which tell a test that a goroutine
//	          is parked on the clock before it moves time
package clock
