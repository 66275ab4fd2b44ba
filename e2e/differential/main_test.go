package differential

import (
	"os"
	"sync"
	"testing"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

func TestMain(m *testing.M) {
	code := target.Main(m)
	closePair()
	os.Exit(code)
}

var (
	pairOnce sync.Once
	// pairFake is the fake server of the pair, started on first use.
	pairFake *target.Target
	pairSrv  *Servers
	pairErr  error
)

// pair returns the real server (the target) and a fake server, or skips
// when the target is itself the fake server.
func pair(t *testing.T) *Servers {
	t.Helper()
	tgt := target.Get(t)
	if tgt.Kind == target.Fake {
		t.Skip("the differential tests compare the fake server with a real one: run with E2E_TARGET=real or kubeconfig")
	}
	pairOnce.Do(func() {
		pairFake, pairErr = target.NewFake()
		if pairErr != nil {
			return
		}
		rc, rb := tgt.HTTP(t)
		fc, fb := pairFake.HTTP(t)
		pairSrv = &Servers{RealHTTP: rc, RealBase: rb, FakeHTTP: fc, FakeBase: fb, Known: known, Report: os.Getenv("E2E_DIFF_REPORT")}
	})
	if pairErr != nil {
		t.Fatalf("fake server: %v", pairErr)
	}
	return pairSrv
}

func closePair() {
	if pairSrv != nil {
		pairSrv.RealHTTP.CloseIdleConnections()
		pairSrv.FakeHTTP.CloseIdleConnections()
	}
	if pairFake != nil {
		pairFake.Close()
	}
}
