package builtin

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// TestResourceSliceGatedFieldsInUse updates a slice that sends every
// field of a gate off in 1.37: an old slice without them has them all
// dropped, and one that already uses a gate's fields keeps that gate's
// (in every device), as the real registry keeps a field in use.
func TestResourceSliceGatedFieldsInUse(t *testing.T) {
	const sent = `{"spec":{"partitionTypeAttribute":"dra.example.com/t","skipNodeOperations":["NodePrepareResources"],"devices":[
	 {"name":"a","attributes":{"l":{"ints":[1]}},"nodeAllocatableResources":{"cpu":{}},"consumesCounters":[{"counterSet":"s","compatibilityGroups":["g"]}]},
	 {"name":"b","attributes":{"l":{"strings":["x"]}},"nodeAllocatableResources":{"memory":{}},"consumesCounters":[{"counterSet":"s","compatibilityGroups":["h"]}]}]}}`
	const dropped = `{"spec":{"devices":[{"name":"a","attributes":{"l":{}},"consumesCounters":[{"counterSet":"s"}]},
	 {"name":"b","attributes":{"l":{}},"consumesCounters":[{"counterSet":"s"}]}]}}`
	cases := []struct{ name, old, want string }{{
		name: "create", want: dropped,
	}, {
		name: "old without them", old: `{"spec":{"devices":[{"name":"a"}]}}`, want: dropped,
	}, {
		name: "old uses all", old: `{"spec":{"partitionTypeAttribute":"dra.example.com/t","skipNodeOperations":["NodePrepareResources"],"devices":[
		 {"name":"z","attributes":{"l":{"bools":[true]}},"nodeAllocatableResources":{"cpu":{}},"consumesCounters":[{"counterSet":"s","compatibilityGroups":["g"]}]}]}}`,
		want: sent,
	}, {
		name: "old uses list attributes only", old: `{"spec":{"devices":[{"name":"z","attributes":{"l":{"versions":["1.0.0"]}}}]}}`,
		want: `{"spec":{"devices":[{"name":"a","attributes":{"l":{"ints":[1]}},"consumesCounters":[{"counterSet":"s"}]},
		 {"name":"b","attributes":{"l":{"strings":["x"]}},"consumesCounters":[{"counterSet":"s"}]}]}}`,
	}}
	for _, tc := range cases {
		obj := parse(t, sent)
		if tc.old == "" {
			_ = PrepareCreate("resource.k8s.io", "ResourceSlice", nil, &obj, Env{})
		} else {
			old := parse(t, tc.old)
			PrepareUpdate("resource.k8s.io", "ResourceSlice", &obj, &old)
		}
		assert.JSONEq(t, tc.want, string(jsonv.Marshal(obj)), tc.name)
	}
}
