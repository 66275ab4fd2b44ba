package fakeapiserver

import (
	"encoding/hex"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// severalBudgetsStatus is the real server's answer, byte for byte, to
// the eviction of a pod more than one budget selects: a 500 with neither
// reason nor details.
const severalBudgetsStatus = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
	`"message":"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.","code":500}` + "\n"

// severalBudgetsProtobuf is the same answer as the real server encodes it
// in protobuf.
const severalBudgetsProtobuf = "6b3873000a0c0a027631120653746174757312780a060a0012001a0012074661696c7572651a60" +
	"5468697320706f6420686173206d6f7265207468616e206f6e6520506f6444697372757074696f6e4275646765742c2077686963682074" +
	"6865206576696374696f6e207375627265736f7572636520646f6573206e6f7420737570706f72742e220030f4031a002200"

// TestEvictionRefusesAPodOfSeveralBudgets: a running pod two budgets of
// its namespace select (one through an empty selector, which selects
// every pod) is not evicted, Ready or not, in a dry run too, whatever the
// Eviction's version; the budgets are not consulted, so their missing
// status does not matter. A budget without a selector selects nothing,
// and a Pending pod is deleted without looking at budgets.
func TestEvictionRefusesAPodOfSeveralBudgets(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const budgetsPath = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
	boundPod(t, c, "m", true)
	c.mustCreate(budgetsPath, `{"metadata":{"name":"by-app"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"m"}}}}`)
	c.mustCreate(budgetsPath, `{"metadata":{"name":"no-selector"},"spec":{"minAvailable":1}}`)

	// One budget selects the pod: its (uncomputed) status answers.
	r := c.post(podsPath+"/m/eviction", evictionBody("m", ""))
	require.Equal(t, http.StatusTooManyRequests, r.code, "%s", r.body)

	c.mustCreate(budgetsPath, `{"metadata":{"name":"all"},"spec":{"maxUnavailable":0,"selector":{}}}`)
	refused := func(query, body string) {
		t.Helper()
		r := c.post(podsPath+"/m/eviction"+query, body, "Accept", "application/json")
		assert.Equal(t, http.StatusInternalServerError, r.code)
		assert.Equal(t, severalBudgetsStatus, string(r.body), "%s %s", query, body)
	}
	refused("", evictionBody("m", `{"gracePeriodSeconds":0}`))
	refused("?dryRun=All", evictionBody("m", ""))
	refused("", `{"apiVersion":"policy/v1beta1","kind":"Eviction","metadata":{"name":"m"}}`)

	r = c.post(podsPath+"/m/eviction", evictionBody("m", ""), "Accept", mediaProtobuf)
	assert.Equal(t, http.StatusInternalServerError, r.code)
	assert.Equal(t, severalBudgetsProtobuf, hex.EncodeToString(r.body))

	r = c.do(http.MethodPatch, podsPath+"/m/status", `{"status":{"conditions":[{"type":"Ready","status":"False"}]}}`,
		"Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	refused("", evictionBody("m", ""))

	pod := c.get(podsPath + "/m").object(t)
	assert.Nil(t, dig(pod, "metadata", "deletionTimestamp"), "the refused pod is not deleted")
	conds, _ := dig(pod, "status", "conditions").([]any)
	assert.Len(t, conds, 1, "the refused pod is not marked DisruptionTarget")
	for _, name := range []string{"by-app", "all"} {
		assert.Nil(t, dig(c.get(budgetsPath+"/"+name).object(t), "status", "disruptedPods"), name)
	}

	c.mustCreate(podsPath, `{"metadata":{"name":"pending","labels":{"app":"m"}},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"nginx"}]}}`)
	r = c.post(podsPath+"/pending/eviction", evictionBody("pending", `{"gracePeriodSeconds":0}`))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Equal(t, http.StatusNotFound, c.get(podsPath+"/pending").code)
}
