package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

const podsPath = "/api/v1/namespaces/default/pods"

// boundPod creates a pod bound to node n1 with label app=name; running
// pods get phase Running and the Ready condition.
func boundPod(t *testing.T, c *testClient, name string, running bool) {
	t.Helper()
	c.mustCreate(podsPath, `{"metadata":{"name":"`+name+`","labels":{"app":"`+name+`"}},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"nginx"}]}}`)
	if running {
		r := c.do(http.MethodPatch, podsPath+"/"+name+"/status", `{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`,
			"Content-Type", "application/merge-patch+json")
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	}
}

func evictionBody(name, options string) string {
	b := `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"` + name + `"}`
	if options != "" {
		b += `,"deleteOptions":` + options
	}
	return b + "}"
}

func TestEvictionWithoutBudgetDeletesThePod(t *testing.T) {
	_, c := newTestServer(t, Options{})
	boundPod(t, c, "a", true)
	r := c.post(podsPath+"/a/eviction", evictionBody("a", `{"gracePeriodSeconds":0}`))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`, string(r.body))
	assert.Equal(t, http.StatusNotFound, c.get(podsPath+"/a").code)
}

func TestEvictionMarksAGracefulPodDisruptionTarget(t *testing.T) {
	_, c := newTestServer(t, Options{})
	boundPod(t, c, "a", false)
	// A dry run changes nothing.
	r := c.post(podsPath+"/a/eviction?dryRun=All", evictionBody("a", ""))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	pod := c.get(podsPath + "/a").object(t)
	assert.Nil(t, dig(pod, "metadata", "deletionTimestamp"))
	assert.Nil(t, dig(pod, "status", "conditions"))

	r = c.post(podsPath+"/a/eviction", evictionBody("a", ""))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	pod = c.get(podsPath + "/a").object(t)
	assert.NotNil(t, dig(pod, "metadata", "deletionTimestamp"), "a pod bound to a node gets its grace period")
	assert.EqualValues(t, 30, dig(pod, "metadata", "deletionGracePeriodSeconds"))
	conds, _ := dig(pod, "status", "conditions").([]any)
	require.Len(t, conds, 1)
	cond := conds[0].(map[string]any)
	assert.Equal(t, "DisruptionTarget", cond["type"])
	assert.Equal(t, "True", cond["status"])
	assert.Equal(t, "EvictionByEvictionAPI", cond["reason"])
	assert.Equal(t, "Eviction API: evicting", cond["message"])
}

func TestEvictionHonoursDisruptionBudgets(t *testing.T) {
	_, c := newTestServer(t, Options{})
	boundPod(t, c, "b", true)
	c.mustCreate("/apis/policy/v1/namespaces/default/poddisruptionbudgets",
		`{"metadata":{"name":"pdb-b"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"b"}}}}`)

	// No disruption controller has computed the budget: refused.
	r := c.post(podsPath+"/b/eviction", evictionBody("b", ""))
	require.Equal(t, http.StatusTooManyRequests, r.code, "%s", r.body)
	assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests",
		"details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget pdb-b is still being processed by the server."}],"retryAfterSeconds":10},
		"code":429}`, string(r.body))

	pdbStatus := "/apis/policy/v1/namespaces/default/poddisruptionbudgets/pdb-b/status"
	patch := func(status string) {
		t.Helper()
		r := c.do(http.MethodPatch, pdbStatus, `{"status":`+status+`}`, "Content-Type", "application/merge-patch+json")
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	}
	patch(`{"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":1,"desiredHealthy":1,"expectedPods":1}`)
	r = c.post(podsPath+"/b/eviction", evictionBody("b", ""))
	require.Equal(t, http.StatusTooManyRequests, r.code, "%s", r.body)
	st := r.status(t)
	assert.Equal(t, []meta.StatusCause{{Type: "DisruptionBudget", Message: "The disruption budget pdb-b needs 1 healthy pods and has 1 currently"}}, st.Details.Causes)
	assert.Zero(t, st.Details.RetryAfterSeconds)

	patch(`{"disruptionsAllowed":1,"currentHealthy":2,"expectedPods":2}`)
	r = c.post(podsPath+"/b/eviction?dryRun=All", evictionBody("b", ""))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.EqualValues(t, 1, dig(c.get(pdbStatus).object(t), "status", "disruptionsAllowed"), "a dry run takes nothing")

	r = c.post(podsPath+"/b/eviction", evictionBody("b", `{"gracePeriodSeconds":0}`))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Equal(t, http.StatusNotFound, c.get(podsPath+"/b").code)
	pdb := c.get(pdbStatus).object(t)
	assert.EqualValues(t, 0, dig(pdb, "status", "disruptionsAllowed"))
	assert.NotNil(t, dig(pdb, "status", "disruptedPods", "b"))
	conds, _ := dig(pdb, "status", "conditions").([]any)
	require.Len(t, conds, 1)
	cond := conds[0].(map[string]any)
	assert.Equal(t, map[string]any{"type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods", "message": "",
		"observedGeneration": float64(1), "lastTransitionTime": cond["lastTransitionTime"]}, cond)
	managers := []any{}
	for _, e := range dig(pdb, "metadata", "managedFields").([]any) {
		managers = append(managers, e.(map[string]any)["manager"])
	}
	assert.Contains(t, managers, "kube-apiserver", "the server writes the budget's status itself")
}

func TestEvictionBadRequests(t *testing.T) {
	_, c := newTestServer(t, Options{})
	boundPod(t, c, "a", false)
	for _, tc := range []struct {
		body, query string
		code        int
		message     string
	}{
		{evictionBody("x", ""), "", 400, "name in URL does not match name in Eviction object"},
		{`{}`, "", 400, "name in URL does not match name in Eviction object"},
		{`{"apiVersion":"v1","kind":"Eviction","metadata":{"name":"a"}}`, "", 400,
			`Eviction in version "v1" cannot be handled as a Eviction: no kind "Eviction" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"`},
		{`{"apiVersion":"policy/v1","kind":"Pod","metadata":{"name":"a"}}`, "", 400,
			`Pod in version "v1" cannot be handled as a Eviction: no kind "Pod" is registered for version "policy/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{`{"metadata":5}`, "", 400,
			`Eviction in version "v1" cannot be handled as a Eviction: json: cannot unmarshal number into Go struct field Eviction.metadata of type v1.ObjectMeta`},
		{`{"metadata":{"name":"a","namespace":"other"}}`, "", 400, "the namespace of the provided object does not match the namespace sent on the request"},
		{evictionBody("a", `{"ignoreStoreReadErrorWithClusterBreakingPotential":true}`), "", 422,
			`Eviction.policy "a" is invalid: deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: can not be set for pod eviction, try after removing the option`},
		{evictionBody("a", `{"dryRun":["All"]}`), "?dryRun=All&dryRun=All", 500, "Non-matching dry-run options in request and content: [All All] and [All]"},
		{evictionBody("a", `{"propagationPolicy":"Bad"}`), "", 422,
			`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bad": supported values: "Foreground", "Background", "Orphan", "nil"`},
		{evictionBody("a", `{"preconditions":{"resourceVersion":"1"}}`), "", 409, "Operation cannot be fulfilled on Pod \"a\": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record"},
		{evictionBody("zz", ""), "", 404, `pods "zz" not found`},
	} {
		path := podsPath + "/a/eviction"
		if tc.message == `pods "zz" not found` {
			path = podsPath + "/zz/eviction"
		}
		r := c.post(path+tc.query, tc.body)
		assert.Equal(t, tc.code, r.code, "%s: %s", tc.body, r.body)
		assert.Contains(t, r.status(t).Message, tc.message, tc.body)
	}
	assert.Equal(t, http.StatusMethodNotAllowed, c.get(podsPath+"/a/eviction").code)
	assert.Nil(t, dig(c.get(podsPath+"/a").object(t), "metadata", "deletionTimestamp"), "no refused eviction deleted the pod")
}

func TestEvictionProtobuf(t *testing.T) {
	_, c := newTestServer(t, Options{})
	boundPod(t, c, "a", false)
	body := protobufBody(t, `{"kind":"Eviction","apiVersion":"policy/v1","metadata":{"name":"a"},"deleteOptions":{"gracePeriodSeconds":0}}`)
	r := c.post(podsPath+"/a/eviction", body, "Content-Type", mediaProtobuf, "Accept", mediaProtobuf+", application/json")
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`, decodeProtobuf(t, r))
	assert.Equal(t, http.StatusNotFound, c.get(podsPath+"/a").code)
}

// FuzzParseEviction checks the Eviction body parser answers a Status for
// anything it refuses and never panics.
func FuzzParseEviction(f *testing.F) {
	f.Add(evictionBody("a", `{"gracePeriodSeconds":0,"preconditions":{"uid":"u"}}`))
	f.Add(`{"metadata":5}`)
	f.Add(`{"apiVersion":"policy/v1beta1","deleteOptions":{"dryRun":["All"],"ignoreStoreReadErrorWithClusterBreakingPotential":true}}`)
	f.Add(`[`)
	f.Fuzz(func(t *testing.T, body string) {
		_, err := parseEviction([]byte(body))
		if err != nil {
			var st *meta.Status
			require.ErrorAs(t, err, &st)
		}
	})
}
