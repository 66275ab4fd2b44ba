package reflector

import (
	"errors"
	"time"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// statusFromClient finds the Status inside an error of the rest client.
func statusFromClient(err error) *meta.Status {
	var se *rest.StatusError
	if errors.As(err, &se) {
		return &se.Status
	}
	return nil
}

// retryAfterFromClient returns the wait the server asked for with a rest
// client error: its Retry-After header, else details.retryAfterSeconds.
func retryAfterFromClient(err error) time.Duration { return rest.SuggestsRetryAfter(err) }

// isInvalidRequest reports a request the rest client refused to build (an
// empty resource, a namespace with a slash): a mistake in the program.
func isInvalidRequest(err error) bool { return errors.Is(err, rest.ErrInvalidRequest) }

// isResponseTooLarge reports a list page the rest client cut at one of its
// bounds (Config.MaxListBytes, MaxListItems).
func isResponseTooLarge(err error) bool { return errors.Is(err, rest.ErrResponseTooLarge) }
