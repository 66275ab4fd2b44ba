package reflector

import (
	"context"
	"log/slog"
	"strings"
	"time"
)

// Contextual logging. A reflector logs through Options.Logger, or else the
// logger its Run's context carries (WithLogger); with neither it logs
// nothing at all. Every line carries the reflector's name, and the
// resource and namespaces its ListerWatcher lists when it can say
// (Describer; NewListWatch's can):
//
//	INFO  listed        objects, resourceVersion, duration, and the relist's cause
//	WARN  list failed / streaming list failed / watch failed / store failed
//	                    class, next state, error (every error OnError receives)
//	DEBUG state         from, to (every transition)

// loggerKey is the context key of WithLogger; its value is a
// contextLogger.
type loggerKey struct{}

// contextLogger is a logger in a context, and whether it is labelled
// already.
type contextLogger struct {
	l        *slog.Logger
	labelled bool
}

// WithLogger returns a copy of ctx that carries l: a Reflector (or an
// informer) run with it logs to l, labelled, unless its Options name a
// logger.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, contextLogger{l: l})
}

// WithLabelledLogger is WithLogger for a logger its caller has labelled
// already (an informer labels its lines with its name, resource and
// namespaces): the reflector logs to it as it is.
func WithLabelledLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, contextLogger{l: l, labelled: true})
}

// LoggerFrom returns the logger ctx carries, or nil.
func LoggerFrom(ctx context.Context) *slog.Logger {
	cl, _ := ctx.Value(loggerKey{}).(contextLogger)
	return cl.l
}

// Description says what a ListerWatcher lists: the resource as
// Source.Resource names it, and its namespaces (none: all namespaces, or a
// cluster-scoped resource).
type Description struct {
	Resource   string
	Namespaces []string
}

// NamespaceSet spells the namespaces for a log line: "*" for all, else the
// names joined by commas.
func (d Description) NamespaceSet() string {
	if len(d.Namespaces) == 0 {
		return "*"
	}
	return strings.Join(d.Namespaces, ",")
}

// Describer is a ListerWatcher that can say what it lists; loggers use it
// to label every line.
type Describer interface {
	Describe() Description
}

// Describe returns what the ListWatch lists, when NewListWatch built it;
// the zero Description otherwise.
func (lw *ListWatch[T]) Describe() Description { return lw.desc }

// Describe returns the wrapped ListerWatcher's Description.
func (s *shardedLW[T]) Describe() Description { return Describe(s.lw) }

// Describe returns lw's Description if it is a Describer, else the zero
// Description.
func Describe(lw any) Description {
	if d, ok := lw.(Describer); ok {
		return d.Describe()
	}
	return Description{}
}

// startLogging picks the logger for one Run: Options.Logger, else ctx's,
// labelled with the reflector's name and what it lists. Nil means quiet.
func (r *Reflector[T]) startLogging(ctx context.Context) {
	l := r.opts.Logger
	labelled := l != nil
	if l == nil {
		cl, _ := ctx.Value(loggerKey{}).(contextLogger)
		l, labelled = cl.l, cl.labelled
	}
	if l == nil {
		r.log = nil
		return
	}
	if !labelled {
		d := Describe(r.lw)
		l = l.With("reflector", r.opts.Name, "resource", d.Resource, "namespaces", d.NamespaceSet())
	}
	r.log = l
}

// logStep logs one step of the loop: a successful list at Info, every
// transition at Debug. Errors are logged where they are reported.
func (r *Reflector[T]) logStep(ctx context.Context, from, next State, o outcome, begin time.Time) {
	if r.log == nil || o.stopped {
		return
	}
	if cause, listed := listCause(from); listed && o.err == nil {
		attrs := []any{"objects", r.listed, "resourceVersion", o.rv}
		if !begin.IsZero() {
			attrs = append(attrs, "duration", r.clock.Now().Sub(begin))
		}
		if cause != nil {
			attrs = append(attrs, "relistCause", cause.Error())
		}
		r.log.InfoContext(ctx, "listed", attrs...)
	}
	if r.log.Enabled(ctx, slog.LevelDebug) {
		r.log.DebugContext(ctx, "state", "from", from.String(), "to", next.String())
	}
}

// listCause reports whether s is a list state, and why it lists (nil for
// the first list).
func listCause(s State) (error, bool) {
	switch s := s.(type) {
	case Listing:
		return s.Cause, true
	case StreamingList:
		return s.Cause, true
	}
	return nil, false
}

// logError logs an error OnError receives.
func (r *Reflector[T]) logError(e *Error) {
	if r.log == nil {
		return
	}
	attrs := []any{"class", e.Class.String(), "error", e.Err.Error()}
	if e.Next != nil {
		attrs = append(attrs, "next", e.Next.String())
	}
	r.log.Warn(e.Op+" failed", attrs...)
}
