package hostile

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HeapSampler records the peak of the Go heap (bytes in live and
// not-yet-swept objects) while an attack runs, sampling every millisecond.
// A spike shorter than that can be missed; the tests' allocations live for
// far longer.
type HeapSampler struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	peak uint64
	base uint64
}

// heapMetric is the runtime metric a HeapSampler reads.
const heapMetric = "/memory/classes/heap/objects:bytes"

// heapNow reads heapMetric.
func heapNow() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// StartHeapSampler starts sampling. The caller calls Stop.
func StartHeapSampler() *HeapSampler {
	h := &HeapSampler{stop: make(chan struct{}), done: make(chan struct{}), base: heapNow()}
	h.peak = h.base
	go h.run()
	return h
}

func (h *HeapSampler) run() {
	defer close(h.done)
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
			v := heapNow()
			h.mu.Lock()
			h.peak = max(h.peak, v)
			h.mu.Unlock()
		}
	}
}

// Stop ends the sampling and returns the peak heap seen, and the peak
// above the heap at the start.
func (h *HeapSampler) Stop() (peak, growth uint64) {
	close(h.stop)
	<-h.done
	h.mu.Lock()
	defer h.mu.Unlock()
	h.peak = max(h.peak, heapNow())
	return h.peak, h.peak - min(h.base, h.peak)
}

// ErrNoPeakRSS is returned where the kernel keeps no high-water mark of
// the resident set (anything but Linux).
var ErrNoPeakRSS = errors.New("peak RSS is not available on this system")

// ResetPeakRSS resets the kernel's high-water mark of this process's
// resident set to its current size (Linux: "5" to /proc/self/clear_refs).
func ResetPeakRSS() error {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return errors.Join(ErrNoPeakRSS, err)
	}
	return nil
}

// PeakRSS returns the high-water mark of this process's resident set in
// bytes since it started or since ResetPeakRSS (VmHWM).
func PeakRSS() (uint64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, errors.Join(ErrNoPeakRSS, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, errors.Join(ErrNoPeakRSS, err)
			}
			return kb << 10, nil
		}
	}
	return 0, ErrNoPeakRSS
}
