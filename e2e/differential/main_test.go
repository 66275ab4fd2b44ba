package differential

import (
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

func TestMain(m *testing.M) {
	code := target.Main(m)
	if pairSrv != nil {
		fmt.Fprintf(os.Stderr, "e2e: %d test functions compared %d requests\n", pairSrv.known.ran(), pairSrv.compared.Load())
	}
	if code == 0 && pairSrv != nil {
		if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
			fmt.Fprintln(os.Stderr, "e2e: -run narrows the tests: stale known differences not checked")
		} else if err := staleError(pairSrv.known.stale()); err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			code = 1
		}
	}
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
		var ks *knownSet
		ks, pairErr = newKnownSet(known)
		if pairErr != nil {
			return
		}
		pairSrv = &Servers{RealHTTP: rc, RealBase: rb, FakeHTTP: fc, FakeBase: fb, known: ks, Report: os.Getenv("E2E_DIFF_REPORT")}
	})
	if pairErr != nil {
		t.Fatalf("differential pair: %v", pairErr)
	}
	t.Cleanup(func() {
		if t.Skipped() {
			pairSrv.known.skip(t.Name())
		} else {
			pairSrv.known.run()
		}
	})
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
