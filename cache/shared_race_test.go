package cache_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
)

// raceDemoEnv makes the test binary run the racy half of
// TestMutatingSharedObjectRaces instead of checking it.
const raceDemoEnv = "CACHE_RACE_DEMO"

// TestMutatingSharedObjectRaces shows what happens when a user modifies an
// object the cache handed out while another goroutine reads it: a data
// race. The racy code runs in a child process (this test binary, re-run),
// so the race detector's report is the expected outcome rather than a
// failure of this package's tests.
func TestMutatingSharedObjectRaces(t *testing.T) {
	if os.Getenv(raceDemoEnv) == "1" {
		mutateWhileReading()
		return
	}
	if !raceEnabled {
		t.Skip("the demonstration needs the race detector: go test -race")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMutatingSharedObjectRaces$", "-test.count=1")
	cmd.Env = append(os.Environ(), raceDemoEnv+"=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child must fail: the race detector reports the race")
	assert.True(t, strings.Contains(string(out), "WARNING: DATA RACE"),
		"child output does not report a data race:\n%s", out)
}

// mutateWhileReading breaks the contract: it changes a label of a cached
// object while another goroutine, a second reader of the same cache,
// reads it.
func mutateWhileReading() {
	x := cache.NewIndexer[*Pod](nil)
	_ = x.Add(newPod("ns", "p", "1", "app", "web"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		p, _ := x.GetByKey("ns/p")
		_ = p.Labels["app"] // an ordinary read by another reader
	}()
	p, _ := x.GetByKey("ns/p")
	p.Labels["app"] = "db" // the forbidden write
	<-done
}
