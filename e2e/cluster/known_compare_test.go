package cluster

import (
	"testing"
)

// TestCompareToleratesTransientStates: sequences that differ only by a
// transient state (and the repeat its removal leaves) are equal; any
// other difference, or a transient state under another key, is one.
func TestCompareToleratesTransientStates(t *testing.T) {
	const (
		created = "Available=True/MinimumReplicasAvailable Progressing=True/NewReplicaSetCreated"
		updated = "Available=True/MinimumReplicasAvailable Progressing=True/ReplicaSetUpdated"
		done    = "Available=True/MinimumReplicasAvailable Progressing=True/NewReplicaSetAvailable"
	)
	real := map[string][]string{"deployment conditions": {created, updated, done, updated, done}, "other": {created, updated, done}}
	fake := map[string][]string{"deployment conditions": {created, done}, "other": {created, done}}
	diffs := compare("deployment", real, fake)
	if len(diffs) != 1 || diffs[0].Key != "other" {
		t.Fatalf("want only the key without transients to differ, got %v", diffs)
	}
	fake["deployment conditions"] = []string{done, created}
	if diffs := compare("deployment", real, fake); len(diffs) != 2 {
		t.Fatalf("want an order difference kept, got %v", diffs)
	}
}
