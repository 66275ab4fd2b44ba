package apistatus

import (
	"net/http"

	"github.com/kubecache/kubecache/meta"
)

// RequestTimedOut is the real server's 504 for a request that did not
// finish within its deadline (Options.RequestTimeout or ?timeout=).
func RequestTimedOut() *meta.Status {
	st := New(http.StatusGatewayTimeout, meta.ReasonTimeout, "Timeout: request did not complete within requested timeout - context deadline exceeded")
	st.Details = &meta.StatusDetails{}
	return st
}
