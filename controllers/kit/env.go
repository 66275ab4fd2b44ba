package kit

import (
	"log/slog"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/rest"
)

// Env is what a controller is built from. The informers of Factory and
// the event writers are run by whoever built the Env (the cluster package, or
// a program's main), not by the controllers.
type Env struct {
	// Client writes to the API server.
	Client *rest.Client
	// Factory shares informers between the controllers of one process.
	Factory *informer.Factory
	// Clock is the cluster's time; nil is the wall clock.
	Clock clock.Clock
	// Logger receives what the controllers do; nil discards.
	Logger *slog.Logger
	// Events records core/v1 Events, as kube-controller-manager's
	// controllers and kubelets do; nil records none.
	Events *Recorder
	// EventsV1 writes events.k8s.io/v1 Events, as kube-scheduler does,
	// through the recorders it makes; nil records none.
	EventsV1 *EventBroadcaster
}

// WithDefaults returns e with nil fields replaced by their defaults.
func (e Env) WithDefaults() Env {
	if e.Clock == nil {
		e.Clock = clock.Real{}
	}
	if e.Logger == nil {
		e.Logger = slog.New(slog.DiscardHandler)
	}
	return e
}
