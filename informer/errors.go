package informer

import (
	"errors"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// statusCause returns the error inside err that carries the server's
// Status — a *rest.StatusError, or a bare *meta.Status from a watch ERROR
// event — or nil. Its text is "<code> <reason>: <message>".
func statusCause(err error) error {
	var se *rest.StatusError
	if errors.As(err, &se) {
		return se
	}
	var st *meta.Status
	if errors.As(err, &st) {
		return st
	}
	return nil
}
