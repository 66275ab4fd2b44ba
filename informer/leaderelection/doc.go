// Package leaderelection keeps two copies of a controller from both acting:
// the copies compete for a coordination.k8s.io/v1 Lease, and only the one
// holding it runs its lead function.
//
// It sits beside the informer: a controller builds its informers and
// workqueue as usual, and starts its workers inside the lead function, so
// a standby copy keeps a warm cache but writes nothing.
//
// On the wire it does what Kubernetes' own controllers do: GET the Lease
// (404 → POST a new one naming itself), PUT to take an expired or released
// Lease or to renew its own, always with the resourceVersion it read so a
// race is lost with 409 Conflict instead of won twice, and on shutdown a
// PUT with holderIdentity "" and leaseDurationSeconds 1 to hand over at
// once. Expiry is judged by each candidate's own clock from the moment it
// last saw the Lease change, never by comparing timestamps written by
// another machine.
//
// # Files
//
//	elector.go  Config, Elector (Run, IsLeader, Leader): campaign, lead, step down, release
//	lease.go    Lease, LeaseSpec and MicroTime, the wire form of the Lease
//
// Time comes from Config.Clock (package clock), so a test moves a
// clock.Fake through lease expiry instead of waiting.
package leaderelection
