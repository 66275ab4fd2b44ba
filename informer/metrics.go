package informer

import "time"

// The handler metrics of Options.Metrics, labelled informer=<name> and
// handler=<the handler's name>, measured only when a Sink is set:
//
//	kubecache_informer_handler_latency_seconds   from a change entering the informer's log to the
//	                                             handler being called with it: how far behind it runs
//	kubecache_informer_handler_duration_seconds  how long each handler call took
//	kubecache_informer_handler_backlog           notifications published and not yet taken, set
//	                                             each time the handler has taken a batch
//
// The informer's own (events, lists, store size) are counted in
// informer.go and freshness.go; its reflector reports lists, watches and
// relists (reflector/metrics.go) through the same Sink unless
// Options.Reflector.Metrics names another.

// The names of the handler metrics.
const (
	metricHandlerLatency  = "kubecache_informer_handler_latency_seconds"
	metricHandlerDuration = "kubecache_informer_handler_duration_seconds"
	metricHandlerBacklog  = "kubecache_informer_handler_backlog"
)

// deliverMeasured is deliver, timed: the entry's wait in the log and the
// handler's call go to the informer's Sink.
func (l *listener[T]) deliverMeasured(e *entry[T]) {
	sink := l.inf.opts.Metrics
	start := l.inf.now()
	switch e.kind {
	case entryAdd, entryUpdate, entryDelete:
		sink.Observe(metricHandlerLatency, time.Duration(max(start-e.at, 0)).Seconds(), "informer", l.inf.name, "handler", l.name)
	}
	l.deliver(e)
	switch e.kind {
	case entryAdd, entryUpdate, entryDelete:
		sink.Observe(metricHandlerDuration, time.Duration(max(l.inf.now()-start, 0)).Seconds(), "informer", l.inf.name, "handler", l.name)
	}
}

// reportBacklog sets the handler's backlog gauge: what is published
// beyond the listener's position.
func (l *listener[T]) reportBacklog(published uint64) {
	queued := uint64(0)
	if seq := l.cur.seq(); published > seq {
		queued = published - seq
	}
	l.inf.opts.Metrics.Set(metricHandlerBacklog, float64(queued), "informer", l.inf.name, "handler", l.name)
}
