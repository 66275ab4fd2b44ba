package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/kubecache/kubecache/rest"
)

// flagSet is a standard library FlagSet that also knows each flag's
// one-letter alias (kubectl's -n for --namespace), the command's usage
// line and its description, so that --help prints them kubectl's way.
type flagSet struct {
	*flag.FlagSet
	use, about string
	// short maps a long flag name to its one-letter alias.
	short map[string]string
	// alias is the set of one-letter aliases.
	alias map[string]bool
}

// newFlagSet returns an empty flagSet for the command name.
func newFlagSet(name, use, about string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, use: use, about: about, short: map[string]string{}, alias: map[string]bool{}}
}

// addAlias registers short as another name for the flag long.
func (fs *flagSet) addAlias(long, short string) {
	if short == "" {
		return
	}
	f := fs.Lookup(long)
	fs.Var(f.Value, short, f.Usage)
	fs.short[long] = short
	fs.alias[short] = true
}

func (fs *flagSet) stringVar(p *string, long, short, def, usage string) {
	fs.StringVar(p, long, def, usage)
	fs.addAlias(long, short)
}

func (fs *flagSet) boolVar(p *bool, long, short string, def bool, usage string) {
	fs.BoolVar(p, long, def, usage)
	fs.addAlias(long, short)
}

func (fs *flagSet) int64Var(p *int64, long string, def int64, usage string) {
	fs.Int64Var(p, long, def, usage)
}

func (fs *flagSet) durationVar(p *time.Duration, long string, def time.Duration, usage string) {
	fs.DurationVar(p, long, def, usage)
}

// usageError is a mistake on the command line: an unknown flag, a bad
// value, a missing argument. It is printed with a pointer to --help.
type usageError struct {
	cmd string // "get"; "" for the top level
	msg string
}

func (e *usageError) Error() string { return e.msg }

// parse reads args: flags anywhere among the positional arguments, as
// kubectl accepts them ("get pods -n kube-system"), and everything after
// "--" as positional. It fails with a *usageError for an unknown flag, a
// bad value, or fewer than minArgs or more than maxArgs (-1: any number)
// positional arguments. -h or --help prints the help to stdout and
// returns errHelpShown.
func (a *app) parse(fs *flagSet, args []string, minArgs, maxArgs int) ([]string, error) {
	cmd := fs.Name()
	var after []string
	for i, arg := range args {
		if arg == "--" {
			args, after = args[:i], args[i+1:]
			break
		}
	}
	for i := 0; i < len(args); i++ {
		name, ok := flagName(args[i])
		if !ok || name == "h" || name == "help" {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			return nil, &usageError{cmd: cmd, msg: "unknown flag: " + strings.SplitN(args[i], "=", 2)[0]}
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !strings.Contains(args[i], "=") && !(ok && b.IsBoolFlag()) {
			i++ // the flag's value, which may start with '-'
		}
	}
	var positional []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.printHelp(a.stdout)
				return nil, errHelpShown
			}
			return nil, &usageError{cmd: cmd, msg: err.Error()}
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		positional = append(positional, rest[0])
		rest = rest[1:]
	}
	positional = append(positional, after...)
	switch {
	case len(positional) < minArgs:
		return nil, &usageError{cmd: cmd, msg: fmt.Sprintf("%q needs %s", "kubecache "+cmd, argsWanted(minArgs, maxArgs))}
	case maxArgs >= 0 && len(positional) > maxArgs:
		return nil, &usageError{cmd: cmd, msg: fmt.Sprintf("%q takes %s, got %d: %s", "kubecache "+cmd, argsWanted(minArgs, maxArgs), len(positional), strings.Join(positional, " "))}
	}
	return positional, nil
}

// argsWanted says how many positional arguments a command takes.
func argsWanted(minArgs, maxArgs int) string {
	switch {
	case maxArgs == 0:
		return "no arguments"
	case minArgs == maxArgs:
		return fmt.Sprintf("exactly %d argument(s)", minArgs)
	case maxArgs < 0:
		return fmt.Sprintf("at least %d argument(s)", minArgs)
	}
	return fmt.Sprintf("%d to %d arguments", minArgs, maxArgs)
}

// flagName returns the name of the flag arg sets, if arg is a flag.
func flagName(arg string) (string, bool) {
	if len(arg) < 2 || arg[0] != '-' {
		return "", false
	}
	name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, _, _ = strings.Cut(name, "=")
	return name, name != ""
}

// printHelp prints the usage line, the description and every flag, long
// names with their aliases, sorted.
func (fs *flagSet) printHelp(w io.Writer) {
	fmt.Fprintf(w, "Usage:\n  %s\n\n%s\n\nFlags:\n", fs.use, fs.about)
	type line struct{ names, usage string }
	var lines []line
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		if fs.alias[f.Name] {
			return
		}
		names := "    --" + f.Name
		if s := fs.short[f.Name]; s != "" {
			names = "-" + s + ", --" + f.Name
		}
		if typ, _ := flag.UnquoteUsage(f); typ != "" {
			names += " " + typ
		}
		usage := f.Usage
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" {
			usage += " (default " + f.DefValue + ")"
		}
		lines = append(lines, line{names, usage})
		width = max(width, len(names))
	})
	sort.Slice(lines, func(i, j int) bool {
		return strings.TrimLeft(lines[i].names, "- ") < strings.TrimLeft(lines[j].names, "- ")
	})
	for _, l := range lines {
		fmt.Fprintf(w, "  %-*s   %s\n", width, l.names, l.usage)
	}
}

// clusterFlags choose the cluster, the credentials and the namespace, as
// kubectl's do.
type clusterFlags struct {
	kubeconfig    string
	context       string
	namespace     string
	allNamespaces bool
	// requestTimeout bounds each request but watches (rest.Config.Timeout);
	// 0 means none, as with kubectl's flag of the same name.
	requestTimeout time.Duration
}

func (c *clusterFlags) register(fs *flagSet) {
	fs.stringVar(&c.kubeconfig, "kubeconfig", "", "", "path to the kubeconfig file (default $KUBECONFIG, then ~/.kube/config)")
	fs.stringVar(&c.context, "context", "", "", "the kubeconfig context to use (default its current-context)")
	fs.stringVar(&c.namespace, "namespace", "n", "", "the namespace (default the context's, else \"default\")")
	fs.boolVar(&c.allNamespaces, "all-namespaces", "A", false, "every namespace")
	fs.durationVar(&c.requestTimeout, "request-timeout", rest.DefaultTimeout,
		"how long to wait for an answer to each request but watches (a list: for each part of it); 0 waits for ever")
}

// listFlags shape what the reflector lists and how it is shown.
type listFlags struct {
	selector      string
	fieldSelector string
	chunkSize     int64
	explain       bool
	progress      string
}

func (l *listFlags) register(fs *flagSet) {
	fs.stringVar(&l.selector, "selector", "l", "", "label selector, e.g. -l 'app=web,tier!=db'")
	fs.stringVar(&l.fieldSelector, "field-selector", "", "", "field selector, e.g. --field-selector status.phase=Running")
	fs.int64Var(&l.chunkSize, "chunk-size", 500, "objects per page of a list (0: one request)")
	fs.boolVar(&l.explain, "explain", "", false, "narrate every step the reflector takes (on stderr)")
	fs.stringVar(&l.progress, "progress", "", "auto", "progress of a long first list on stderr: auto (on a terminal), always or never")
}

// listing checks --chunk-size and --progress for the command cmd: the
// reflector's PageSize, and whether to draw progress given whether stderr
// is a terminal.
func (l *listFlags) listing(cmd string, terminal bool) (pageSize int64, progress bool, err error) {
	if pageSize, err = l.pageSize(); err == nil {
		progress, err = l.showProgress(terminal)
	}
	return pageSize, progress, withCmd(err, cmd)
}

// pageSize converts --chunk-size to the reflector's PageSize.
func (l *listFlags) pageSize() (int64, error) {
	switch {
	case l.chunkSize < 0:
		return 0, &usageError{msg: fmt.Sprintf("--chunk-size must be 0 or more, got %d", l.chunkSize)}
	case l.chunkSize == 0:
		return -1, nil
	}
	return l.chunkSize, nil
}

// showProgress decides whether to draw progress.
func (l *listFlags) showProgress(terminal bool) (bool, error) {
	switch l.progress {
	case "auto":
		return terminal, nil
	case "always":
		return true, nil
	case "never":
		return false, nil
	}
	return false, &usageError{msg: fmt.Sprintf("--progress must be auto, always or never, got %q", l.progress)}
}
