package main

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemo runs the demo for a few seconds — bounded by its own
// --duration, not by a sleep here — with faults every 300ms, and checks
// that the workload's events, a reconnect after a cut and a relist after
// a 410 were all narrated.
func TestDemo(t *testing.T) {
	started := time.Now()
	r := runCommand(t, "demo", "--duration", "8s", "--faults-every", "200ms", "--rate", "10", "--objects", "8", "--chunk-size", "3")
	require.NoError(t, r.err, "stderr:\n%s", r.stderr)
	assert.Less(t, time.Since(started), 30*time.Second, "--duration bounds the demo")
	out := r.stdout

	for _, want := range []string{
		"kubecache demo — no cluster needed.",
		"LIST rv=0 limit=3",
		"REPLACE 8 objects",
		"informer   ", "synced: 8 objects",
		"handler   ", "ADDED     demo/cm-001", "(initial list)",
		"workload  ",
		"fault     ", "cut the watch",
		"the stream broke", "backing off", "— reconnect",
		"410 Expired", "— relist",
	} {
		assert.Contains(t, out, want)
	}
	ok, missing := inOrder(out, "410 Expired", `-> listing rv=""  — relist`, `LIST rv="" limit=3`, "REPLACE", "WATCH rv=")
	assert.True(t, ok, "the 410 and its relist are narrated in order; missing %q:\n%s", missing, out)
	assert.Regexp(t, `(?m)^workload\s+\+\d+\.\d{3}s\s+(create|update|delete) demo/cm-\d{3}`, out)
	assert.Regexp(t, `(?m)^handler\s+\+\d+\.\d{3}s\s+(MODIFIED|DELETED|ADDED)\s+demo/cm-\d{3}\s+rv=\d+$`, out, "a change after the initial list reaches the handler")

	m := regexp.MustCompile(`demo over: (\d+) relists?, (\d+) reconnects?`).FindStringSubmatch(out)
	require.NotNil(t, m, "the demo ends with its summary:\n%s", out)
	relists, _ := strconv.Atoi(m[1])
	reconnects, _ := strconv.Atoi(m[2])
	assert.GreaterOrEqual(t, relists, 1)
	assert.GreaterOrEqual(t, reconnects, 2)
}

func TestDemoFlags(t *testing.T) {
	r := runCommand(t, "demo", "--rate", "-1")
	require.Error(t, r.err)
	assert.Contains(t, r.stderr, "must not be negative")
	assert.Contains(t, r.stderr, "See 'kubecache demo --help' for usage.")

	r = runCommand(t, "demo", "--rate", "5000")
	require.Error(t, r.err)
	assert.Contains(t, r.stderr, "more than 1000 writes per second")

	// A demo without faults or writes still lists, watches and ends.
	r = runCommand(t, "demo", "--duration", "300ms", "--faults-every", "0", "--rate", "0", "--objects", "2", "--streaming-list")
	require.NoError(t, r.err, r.stderr)
	assert.Contains(t, r.stdout, "a streaming list")
	assert.Contains(t, r.stdout, "demo over: 0 relists, 0 reconnects")
	assert.NotContains(t, r.stdout, "fault     ")
}
