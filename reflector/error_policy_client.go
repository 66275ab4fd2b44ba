package reflector

import (
	"time"

	"github.com/kubecache/kubecache/meta"
)

// statusFromClient finds the Status inside an error of the rest client.
func statusFromClient(err error) *meta.Status { return nil }

// retryAfterFromClient returns the Retry-After header the rest client kept.
func retryAfterFromClient(err error) time.Duration { return 0 }
