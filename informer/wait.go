package informer

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Syncer is anything WaitForCacheSync can wait for: an Informer or a
// Registration.
type Syncer interface {
	// Name names it in errors.
	Name() string
	// Synced returns a channel closed once it has synced.
	Synced() <-chan struct{}
	// SyncError says why it has not synced yet; nil if it has, or if no
	// error has happened.
	SyncError() error
}

// NotSyncedError is returned by WaitForCacheSync when ctx ends before every
// Syncer has synced. Its message names each one that has not, with the
// reason: "caches not synced (context deadline exceeded): configmaps:
// list: 403 Forbidden: …". It wraps ctx's error and every reason, so
// errors.Is(err, context.DeadlineExceeded) and rest.IsForbidden(err) work.
type NotSyncedError struct {
	// Err is ctx's error.
	Err error
	// Pending lists what has not synced, in the order it was given.
	Pending []PendingSync
}

// PendingSync is one Syncer that has not synced, and why.
type PendingSync struct {
	Name string
	// Cause is its SyncError, or nil if it reported none.
	Cause error
}

// Error names every pending Syncer and its reason.
func (e *NotSyncedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "caches not synced (%v)", e.Err)
	for i, p := range e.Pending {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		if p.Cause != nil {
			b.WriteString(p.Cause.Error())
		} else {
			b.WriteString(p.Name + ": no error reported yet (still listing)")
		}
	}
	return b.String()
}

// Unwrap returns ctx's error and every cause.
func (e *NotSyncedError) Unwrap() []error {
	errs := []error{e.Err}
	for _, p := range e.Pending {
		if p.Cause != nil {
			errs = append(errs, p.Cause)
		}
	}
	return errs
}

// WaitForCacheSync waits until every syncer has synced and returns nil, or
// until ctx ends and returns a *NotSyncedError saying, for each one that
// has not, why: the last error it met ("configmaps: list: 403 Forbidden:
// …"), not only that time ran out. It does not poll: it waits on each
// syncer's Synced channel.
func WaitForCacheSync(ctx context.Context, syncers ...Syncer) error {
	for _, s := range syncers {
		if s == nil {
			return errors.New("wait for cache sync: nil syncer")
		}
	}
	for _, s := range syncers {
		select {
		case <-s.Synced():
		case <-ctx.Done():
			return notSynced(ctx.Err(), syncers)
		}
	}
	return nil
}

func notSynced(ctxErr error, syncers []Syncer) error {
	e := &NotSyncedError{Err: ctxErr}
	for _, s := range syncers {
		select {
		case <-s.Synced():
			continue
		default:
		}
		e.Pending = append(e.Pending, PendingSync{Name: s.Name(), Cause: s.SyncError()})
	}
	return e
}
