package fakeapiserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigMapDataRulesOverTheWire checks that the rules on ConfigMap data
// reach a client as a real server gives them: a key that could name a path
// outside a mounted volume ("../etc") and data over 1 MiB are refused with
// 422 Invalid, and exactly 1 MiB is stored.
func TestConfigMapDataRulesOverTheWire(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const path = "/api/v1/namespaces/default/configmaps"
	cm := func(name, key, value string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":{"` + key + `":"` + value + `"}}`
	}

	r := c.post(path, cm("dots", "../etc", "x"), "Content-Type", "application/json")
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "POST data key ../etc: %s", r.body)
	st := r.status(t)
	assert.Equal(t, "Invalid", string(st.Reason))
	assert.Contains(t, st.Message, `data[../etc]`)
	assert.Contains(t, st.Message, `must not start with '..'`)

	r = c.post(path, cm("big", "k", strings.Repeat("x", 1<<20+1)), "Content-Type", "application/json")
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "POST 1 MiB + 1 of data: %.300s", r.body)
	assert.Contains(t, r.status(t).Message, "Too long: may not be more than 1048576 bytes")

	r = c.post(path, cm("exact", "k", strings.Repeat("x", 1<<20-1)), "Content-Type", "application/json")
	assert.Equal(t, http.StatusCreated, r.code, "POST just under 1 MiB of data: %.300s", r.body)
}
