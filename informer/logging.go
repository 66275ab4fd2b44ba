package informer

import (
	"context"
	"errors"

	"github.com/kubecache/kubecache/reflector"
)

// Contextual logging. An informer logs through Options.Logger, or else the
// logger its Run's context carries (reflector.WithLogger); with neither it
// logs nothing. Every line, its reflector's included, carries the
// informer's name, the resource and the namespaces it lists:
//
//	DEBUG started, stopped
//	INFO  synced        objects, duration (the first list is in the cache)
//	ERROR handler panicked   handler, method, key, value
//	WARN  the informer's other errors (an object the cache refused)
//
// The reflector's lines (lists, errors, transitions) are in
// reflector/logging.go; its errors are logged there, not twice.

// startLogging picks the informer's logger for a Run and returns the
// context its reflector runs with, which carries the same labelled logger.
func (inf *Informer[T]) startLogging(ctx context.Context) context.Context {
	l := inf.opts.Logger
	if l == nil {
		l = reflector.LoggerFrom(ctx)
	}
	if l == nil {
		return ctx
	}
	l = l.With("informer", inf.name, "resource", inf.desc.Resource, "namespaces", inf.desc.NamespaceSet())
	inf.logger.Store(l)
	l.DebugContext(ctx, "started")
	return reflector.WithLabelledLogger(ctx, l)
}

// logSynced logs the first sync.
func (inf *Informer[T]) logSynced() {
	if l := inf.logger.Load(); l != nil {
		l.Info("synced", "objects", inf.indexer.Len(), "duration", inf.clock.Now().Sub(inf.epoch))
	}
}

// logStopped logs the end of Run.
func (inf *Informer[T]) logStopped() {
	if l := inf.logger.Load(); l != nil {
		l.Debug("stopped")
	}
}

// logError logs an error the informer reports, unless its reflector
// logged it already.
func (inf *Informer[T]) logError(err error) {
	l := inf.logger.Load()
	if l == nil {
		return
	}
	var re *reflector.Error
	var hp *HandlerPanicError
	switch {
	case errors.As(err, &re):
	case errors.As(err, &hp):
		l.Error("handler panicked", "handler", hp.Handler, "method", hp.Method, "key", hp.Key, "value", hp.Value)
	default:
		l.Warn("error", "error", err.Error())
	}
}
