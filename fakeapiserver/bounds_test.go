package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server must stay bounded under abuse: history, snapshots and slow
// readers all have limits.

func TestHistoryIsBoundedUnderManyUpdates(t *testing.T) {
	s, c := newTestServer(t, Options{HistoryLimit: 100})
	c.mustCreate(cmPath, `{"metadata":{"name":"hot"}}`)
	for i := range 1000 {
		r := c.do(http.MethodPatch, cmPath+"/hot", fmt.Sprintf(`{"data":{"n":"%d"}}`, i), "Content-Type", mergePatch)
		require.Equal(t, http.StatusOK, r.code)
	}
	logLen, versions := s.store.HistoryLen("/configmaps")
	assert.LessOrEqual(t, logLen, 100)
	assert.LessOrEqual(t, versions, 101)
	// A watch from before the retained history is told so.
	w := c.watch(cmPath + "?watch=1&resourceVersion=10")
	e := w.next()
	assert.Equal(t, "ERROR", e.Type)
}

func TestConcurrentPaginatedListsStayConsistentAndBounded(t *testing.T) {
	s, c := newTestServer(t, Options{HistoryLimit: 200})
	for i := range 50 {
		c.mustCreate(cmPath, fmt.Sprintf(`{"metadata":{"name":"cm%02d"}}`, i))
	}
	stop := make(chan struct{})
	writerDone := make(chan struct{})
	go func() { // a writer churning the collection
		defer close(writerDone)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			c.do(http.MethodPatch, fmt.Sprintf("%s/cm%02d", cmPath, i%50), fmt.Sprintf(`{"data":{"n":"%d"}}`, i), "Content-Type", mergePatch)
		}
	}()
	var gone, complete int
	var mu sync.Mutex
	var readers sync.WaitGroup
	for range 20 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for range 5 {
				names, ok := paginate(c, cmPath+"?limit=7")
				mu.Lock()
				if ok {
					complete++
					assert.Len(t, names, 50, "a paginated list sees every object exactly once")
				} else {
					gone++
				}
				mu.Unlock()
			}
		}()
	}
	readers.Wait()
	close(stop)
	<-writerDone
	t.Logf("paginated lists: %d complete, %d expired (410)", complete, gone)
	_, versions := s.store.HistoryLen("/configmaps")
	assert.LessOrEqual(t, versions, 201, "snapshots are bounded by the history limit")
}

// paginate follows continue tokens; ok is false on a 410.
func paginate(c *testClient, path string) ([]string, bool) {
	var names []string
	cont := ""
	rv := ""
	for {
		p := path
		if cont != "" {
			p += "&continue=" + cont
		}
		req, _ := http.NewRequest(http.MethodGet, c.base+p, nil)
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, false
		}
		var l listBody
		err = json.NewDecoder(resp.Body).Decode(&l)
		resp.Body.Close()
		if resp.StatusCode == http.StatusGone {
			return nil, false
		}
		if err != nil || resp.StatusCode != http.StatusOK {
			return nil, false
		}
		if rv == "" {
			rv = l.Metadata["resourceVersion"].(string)
		} else if rv != l.Metadata["resourceVersion"] {
			return nil, false
		}
		for _, it := range l.Items {
			s := string(it)
			i := strings.Index(s, `"name":"`) + len(`"name":"`)
			names = append(names, s[i:i+4])
		}
		cont, _ = l.Metadata["continue"].(string)
		if cont == "" {
			return names, true
		}
	}
}

func TestReaderThatStopsReadingIsClosed(t *testing.T) {
	s := New(Options{WatchQueueLength: 20})
	s.connWriteBuffer = 8 << 10 // fill the socket with few events
	require.NoError(t, s.Start())
	t.Cleanup(s.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := &testClient{t: t, base: s.URL(), http: &http.Client{Transport: tr}}
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	// A raw connection that sends the request and never reads.
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "GET %s?watch=1&resourceVersion=%s HTTP/1.1\r\nHost: x\r\n\r\n", cmPath, rvOf(t, a))
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).SetReadBuffer(4096))
	require.NoError(t, s.WaitForWatchers(testContext(t), "configmaps", 1))
	big := strings.Repeat("x", 16<<10)
	i := 0
	for ; s.Watchers("configmaps") > 0; i++ {
		require.Less(t, i, 2000, "the stalled watcher was never dropped")
		c.mustCreate(cmPath, fmt.Sprintf(`{"metadata":{"name":"b%d"},"data":{"big":%q}}`, i, big))
	}
	t.Logf("dropped after %d creates", i)
	waitNoWatchers(t, s)
	// The handler has returned: Close (in cleanup) would otherwise hang,
	// and goleak would report its goroutine.
}
