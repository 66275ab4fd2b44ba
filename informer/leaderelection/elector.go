package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/rest"
)

// Client is what an Elector needs of the rest client: *rest.Client has it.
type Client interface {
	Get() *rest.Request
	Post() *rest.Request
	Put() *rest.Request
}

// Config configures an Elector. Client, Namespace, Name and Identity are
// required; the durations default to the values client-go uses.
type Config struct {
	Client Client
	// Namespace and Name name the Lease the candidates share.
	Namespace, Name string
	// Identity names this candidate; it must differ between candidates
	// (a pod name, a hostname plus a random suffix).
	Identity string

	// LeaseDuration is how long the others wait, after they last saw the
	// lease renewed, before they take it (default 15s). RenewDeadline is
	// how long the leader keeps trying to renew before it steps down
	// (default 10s); it must be shorter than LeaseDuration, so the leader
	// stops acting before anyone else may start. RetryPeriod is the pause
	// between attempts (default 2s), shorter than RenewDeadline.
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration

	// Clock is the source of time; nil is the wall clock.
	Clock clock.Clock
	// OnNewLeader, if set, is called with the holder's identity each time
	// the elector sees the holder change ("" when released). It runs on
	// the elector's goroutine and must not block.
	OnNewLeader func(identity string)
	// OnError, if set, receives every failed attempt. It runs on the
	// elector's goroutine and must not block.
	OnError func(error)
}

// Defaults of Config's durations.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// Errors of leader election.
var (
	// ErrInvalidConfig is wrapped by every error New returns.
	ErrInvalidConfig = errors.New("invalid leader election config")
	// ErrLeaseLost is returned by Run when this candidate led and could
	// not renew its lease within RenewDeadline: it has stopped acting,
	// and someone else may lead now.
	ErrLeaseLost = errors.New("leader election lease lost")
	// ErrAlreadyRunning is returned by a second concurrent Run.
	ErrAlreadyRunning = errors.New("elector already running")
)

// Elector runs one candidate of a leader election over a
// coordination.k8s.io Lease, the way Kubernetes controllers do:
//
//   - acquire: GET the Lease; if it does not exist, POST one naming this
//     candidate. If it exists and its holder is another candidate that
//     renewed it less than LeaseDuration ago (as seen by this candidate's
//     clock, never by comparing clocks across machines), wait RetryPeriod
//     and try again. Otherwise PUT it, naming this candidate, with the
//     resourceVersion read: if someone else wrote it first, the server
//     answers 409 Conflict and this candidate lost the race.
//   - lead: call the lead function with a context that stays open while
//     this candidate leads, and renew the Lease every RetryPeriod (a PUT
//     with the current resourceVersion).
//   - step down: if no renewal succeeds for RenewDeadline, cancel the lead
//     context, wait for the lead function to return, and report
//     ErrLeaseLost. On cancellation, release the Lease (holderIdentity "",
//     leaseDurationSeconds 1) so the next candidate need not wait.
//
// Its methods are safe for concurrent use.
type Elector struct {
	cfg   Config
	clock clock.Clock

	running atomic.Bool
	leading atomic.Bool

	// mu guards observed, observedAt and holder: the last lease seen,
	// when it was first seen in that state (by this clock), and its
	// holder.
	mu         sync.Mutex
	observed   observedLease
	observedAt time.Time
	holder     string
}

// observedLease is the part of a lease whose change shows the holder is
// alive.
type observedLease struct {
	holder, renew, resourceVersion string
}

// New checks cfg and returns an Elector.
func New(cfg Config) (*Elector, error) {
	bad := func(format string, args ...any) (*Elector, error) {
		return nil, fmt.Errorf("%w: %s", ErrInvalidConfig, fmt.Sprintf(format, args...))
	}
	switch {
	case cfg.Client == nil:
		return bad("Client is nil")
	case cfg.Namespace == "" || cfg.Name == "":
		return bad("the Lease needs a Namespace and a Name")
	case cfg.Identity == "":
		return bad("Identity is empty")
	}
	if cfg.LeaseDuration == 0 {
		cfg.LeaseDuration = DefaultLeaseDuration
	}
	if cfg.RenewDeadline == 0 {
		cfg.RenewDeadline = DefaultRenewDeadline
	}
	if cfg.RetryPeriod == 0 {
		cfg.RetryPeriod = DefaultRetryPeriod
	}
	switch {
	case cfg.LeaseDuration < time.Second:
		return bad("LeaseDuration %v is under a second (the Lease counts whole seconds)", cfg.LeaseDuration)
	case cfg.RetryPeriod <= 0:
		return bad("RetryPeriod %v is not positive", cfg.RetryPeriod)
	case cfg.RenewDeadline >= cfg.LeaseDuration:
		return bad("RenewDeadline %v must be shorter than LeaseDuration %v", cfg.RenewDeadline, cfg.LeaseDuration)
	case cfg.RetryPeriod >= cfg.RenewDeadline:
		return bad("RetryPeriod %v must be shorter than RenewDeadline %v", cfg.RetryPeriod, cfg.RenewDeadline)
	}
	return &Elector{cfg: cfg, clock: clock.Or(cfg.Clock)}, nil
}

// IsLeader reports whether this candidate leads now.
func (e *Elector) IsLeader() bool { return e.leading.Load() }

// Leader returns the holder of the Lease as last seen, "" if none.
func (e *Elector) Leader() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.holder
}

// Run campaigns until this candidate leads, calls lead with a context that
// is cancelled when it stops leading, and keeps the lease renewed meanwhile.
// It returns:
//
//   - nil after ctx is cancelled (or lead returns by itself): the lease is
//     released, and lead has returned;
//   - ErrLeaseLost when renewals failed for RenewDeadline: lead's context
//     was cancelled and lead has returned. Most programs exit then, so a
//     fresh copy campaigns from scratch.
//
// Run never returns while lead is running.
func (e *Elector) Run(ctx context.Context, lead func(ctx context.Context)) error {
	if !e.running.CompareAndSwap(false, true) {
		return ErrAlreadyRunning
	}
	defer e.running.Store(false)
	if !e.campaign(ctx) {
		return nil
	}
	return e.lead(ctx, lead)
}

// campaign tries to acquire the lease every RetryPeriod until it does
// (true) or ctx ends (false).
func (e *Elector) campaign(ctx context.Context) bool {
	for {
		if ok, err := e.tryAcquireOrRenew(ctx); err != nil {
			e.report(fmt.Errorf("acquire lease %s/%s: %w", e.cfg.Namespace, e.cfg.Name, err))
		} else if ok {
			return true
		}
		if !e.sleep(ctx, e.cfg.RetryPeriod) {
			return false
		}
	}
}

// lead runs fn while renewing the lease.
func (e *Elector) lead(ctx context.Context, fn func(ctx context.Context)) error {
	e.leading.Store(true)
	leadCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(leadCtx)
	}()
	stepDown := func() {
		cancel()
		<-done
		e.leading.Store(false)
	}

	lastRenew := e.clock.Now()
	for {
		if !e.sleepOrDone(ctx, e.cfg.RetryPeriod, done) {
			// Cancelled, or lead returned by itself: hand over.
			stepDown()
			e.release(ctx)
			return nil
		}
		ok, err := e.tryAcquireOrRenew(ctx)
		now := e.clock.Now()
		switch {
		case ok:
			lastRenew = now
			continue
		case err != nil:
			e.report(fmt.Errorf("renew lease %s/%s: %w", e.cfg.Namespace, e.cfg.Name, err))
		default:
			e.report(fmt.Errorf("renew lease %s/%s: now held by %q", e.cfg.Namespace, e.cfg.Name, e.Leader()))
		}
		if !ok && (now.Sub(lastRenew) >= e.cfg.RenewDeadline || e.heldByOther()) {
			stepDown()
			return fmt.Errorf("%w: %s/%s not renewed since %v", ErrLeaseLost, e.cfg.Namespace, e.cfg.Name, now.Sub(lastRenew))
		}
	}
}

// heldByOther reports whether the lease was last seen held by another
// candidate.
func (e *Elector) heldByOther() bool {
	h := e.Leader()
	return h != "" && h != e.cfg.Identity
}

// tryAcquireOrRenew makes one attempt to hold the lease. It reports true
// if this candidate holds it afterwards, and an error if the attempt
// failed for a reason other than losing a race.
func (e *Elector) tryAcquireOrRenew(ctx context.Context) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.RenewDeadline)
	defer cancel()
	now := e.clock.Now()
	var cur Lease
	err := e.cfg.Client.Get().Group("coordination.k8s.io").Namespace(e.cfg.Namespace).
		Resource("leases").Name(e.cfg.Name).Do(ctx).Into(&cur)
	switch {
	case rest.IsNotFound(err):
		created := e.record(nil, now)
		err := e.cfg.Client.Post().Group("coordination.k8s.io").Namespace(e.cfg.Namespace).
			Resource("leases").Body(created).Do(ctx).Into(&cur)
		if rest.IsAlreadyExists(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		e.observe(&cur, now)
		return true, nil
	case err != nil:
		return false, err
	}

	e.observe(&cur, now)
	holder := cur.Spec.holder()
	if holder != "" && holder != e.cfg.Identity && !e.expired(cur.Spec, now) {
		return false, nil
	}
	updated := e.record(&cur, now)
	var out Lease
	err = e.cfg.Client.Put().Group("coordination.k8s.io").Namespace(e.cfg.Namespace).
		Resource("leases").Name(e.cfg.Name).Body(updated).Do(ctx).Into(&out)
	if rest.IsConflict(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	e.observe(&out, now)
	return true, nil
}

// record returns the lease naming this candidate as holder at now, based
// on cur (nil when there is none), keeping cur's resourceVersion.
func (e *Elector) record(cur *Lease, now time.Time) *Lease {
	id := e.cfg.Identity
	secs := int32(e.cfg.LeaseDuration / time.Second)
	l := &Lease{
		TypeMeta: metaLease,
		Spec: LeaseSpec{
			HolderIdentity:       &id,
			LeaseDurationSeconds: &secs,
			AcquireTime:          NewMicroTime(now),
			RenewTime:            NewMicroTime(now),
		},
	}
	l.Namespace, l.Name = e.cfg.Namespace, e.cfg.Name
	transitions := int32(0)
	if cur != nil {
		l.ObjectMeta = cur.ObjectMeta
		transitions = cur.Spec.transitions()
		if cur.Spec.holder() == id {
			l.Spec.AcquireTime = cur.Spec.AcquireTime
		} else {
			transitions++
		}
	}
	l.Spec.LeaseTransitions = &transitions
	return l
}

// observe records the lease as seen at now: when it changes, the holder is
// alive and its lease runs LeaseDuration from now.
func (e *Elector) observe(l *Lease, now time.Time) {
	o := observedLease{holder: l.Spec.holder(), resourceVersion: l.ResourceVersion}
	if l.Spec.RenewTime != nil {
		o.renew = l.Spec.RenewTime.Format(microLayout)
	}
	e.mu.Lock()
	changed := o != e.observed
	if changed {
		e.observed, e.observedAt = o, now
	}
	newLeader := o.holder != e.holder
	e.holder = o.holder
	e.mu.Unlock()
	if newLeader && e.cfg.OnNewLeader != nil {
		e.cfg.OnNewLeader(o.holder)
	}
}

// expired reports whether the lease, unchanged since this candidate last
// saw it change, has outlived its duration.
func (e *Elector) expired(spec LeaseSpec, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return !now.Before(e.observedAt.Add(spec.duration(e.cfg.LeaseDuration)))
}

// release gives the lease up, if this candidate holds it, so the next one
// need not wait for it to expire. ctx may be cancelled already: release
// gets a short context of its own.
func (e *Elector) release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.cfg.RenewDeadline)
	defer cancel()
	var cur Lease
	err := e.cfg.Client.Get().Group("coordination.k8s.io").Namespace(e.cfg.Namespace).
		Resource("leases").Name(e.cfg.Name).Do(ctx).Into(&cur)
	if err != nil {
		e.report(fmt.Errorf("release lease %s/%s: %w", e.cfg.Namespace, e.cfg.Name, err))
		return
	}
	if cur.Spec.holder() != e.cfg.Identity {
		return
	}
	empty := ""
	one := int32(1)
	now := NewMicroTime(e.clock.Now())
	cur.Spec.HolderIdentity = &empty
	cur.Spec.LeaseDurationSeconds = &one
	cur.Spec.RenewTime = now
	cur.Spec.AcquireTime = now
	var out Lease
	err = e.cfg.Client.Put().Group("coordination.k8s.io").Namespace(e.cfg.Namespace).
		Resource("leases").Name(e.cfg.Name).Body(&cur).Do(ctx).Into(&out)
	if err != nil {
		e.report(fmt.Errorf("release lease %s/%s: %w", e.cfg.Namespace, e.cfg.Name, err))
		return
	}
	e.observe(&out, e.clock.Now())
}

// sleep waits d on the clock; false if ctx ended first.
func (e *Elector) sleep(ctx context.Context, d time.Duration) bool {
	return e.sleepOrDone(ctx, d, nil)
}

// sleepOrDone waits d on the clock; false if ctx ended or done closed
// first.
func (e *Elector) sleepOrDone(ctx context.Context, d time.Duration, done <-chan struct{}) bool {
	c, stop := e.clock.NewTimer(d)
	defer stop()
	select {
	case <-c:
		return true
	case <-ctx.Done():
		return false
	case <-done:
		return false
	}
}

func (e *Elector) report(err error) {
	if e.cfg.OnError != nil {
		e.cfg.OnError(err)
	}
}
