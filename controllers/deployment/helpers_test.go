package deployment_test

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kubecache/kubecache/fakeapiserver"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func newClock() *fakeapiserver.FakeClock {
	return fakeapiserver.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
}

func serverOptions(clock *fakeapiserver.FakeClock) fakeapiserver.Options {
	return fakeapiserver.Options{Clock: clock}
}
