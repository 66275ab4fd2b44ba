package cluster

// openDifference points to an entry of docs/fidelity.md's open differences.
func openDifference(what string) string { return "docs/fidelity.md, open: " + what }

// known lists the differences between the real control plane and
// kubecache's controllers that docs/fidelity.md describes. An entry no
// difference needs any more fails the run (TestMain): remove it, and its
// entry in the docs.
var known = newKnownSet([]Known{})
