package kit

import (
	"log/slog"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/rest"
)

// Env is what a controller is built from. The informers of Factory and
// the Recorder are run by whoever built the Env (the cluster package, or
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
	// Events records Events; nil records none.
	Events *Recorder
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
