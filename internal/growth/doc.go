// Package growth is a test helper: it checks that an operation's cost
// grows linearly with the size of its input. The cost is the process's
// CPU time, not the wall clock, so a machine loaded by other processes
// does not change the verdict; an operation that scans its input once per
// item still fails it by a wide margin.
//
// Files:
//
//	linear.go  Linear, the check, and the CPU-time measurement under it
package growth
