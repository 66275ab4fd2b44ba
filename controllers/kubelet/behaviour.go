package kubelet

import (
	"strconv"
	"strings"
	"time"

	"github.com/kubecache/kubecache/controllers/api"
)

// AnnotationPrefix starts the pod annotations that set a pod's Behaviour:
//
//	sim.kubecache.dev/start-after  "2s"   time from binding to the containers running
//	sim.kubecache.dev/ready-after  "5s"   time from running to ready
//	sim.kubecache.dev/never-ready  "true" the containers never turn ready
//	sim.kubecache.dev/exit-after   "10s"  the containers exit this long after starting
//	sim.kubecache.dev/exit-code    "1"    with this code (default 0)
//	sim.kubecache.dev/stop-after   "3s"   time a container takes to stop when its pod is deleted
const AnnotationPrefix = "sim.kubecache.dev/"

// Behaviour is what the containers of a pod do.
type Behaviour struct {
	// StartAfter is the time from the pod's first status to its
	// containers running (pulling images, starting them).
	StartAfter time.Duration
	// ReadyAfter is the time from a container starting to its turning
	// ready; a container with a readiness probe and no explicit value
	// waits the probe's initialDelaySeconds.
	ReadyAfter time.Duration
	// NeverReady keeps the containers unready.
	NeverReady bool
	// Exits makes the containers exit ExitAfter after each start, with
	// ExitCode; a container that exits is restarted (with back-off) as
	// the pod's restartPolicy says.
	Exits     bool
	ExitAfter time.Duration
	ExitCode  int32
	// StopAfter is how long a container takes to stop once its pod is
	// deleted; one still running when the grace period ends is killed.
	StopAfter time.Duration
}

// Rule gives a Behaviour to the pods whose first container's image
// matches Image, a pattern where '*' stands for any run of characters,
// slashes included ("*crash*", "busybox:*").
type Rule struct {
	Image     string
	Behaviour Behaviour
}

// DefaultRules are the image rules a Kubelet uses when Options.Rules is
// nil: an image whose name contains "crash" exits with code 1 two
// seconds after each start (so a Deployment of it ends in
// CrashLoopBackOff); "fail", the same after one second; "never-ready"
// and "unready" never turn ready; "succeed" and "complete" exit 0 after
// one second.
var DefaultRules = []Rule{
	{Image: "*crash*", Behaviour: Behaviour{Exits: true, ExitAfter: 2 * time.Second, ExitCode: 1}},
	{Image: "*fail*", Behaviour: Behaviour{Exits: true, ExitAfter: time.Second, ExitCode: 1}},
	{Image: "*never-ready*", Behaviour: Behaviour{NeverReady: true}},
	{Image: "*unready*", Behaviour: Behaviour{NeverReady: true}},
	{Image: "*succeed*", Behaviour: Behaviour{Exits: true, ExitAfter: time.Second}},
	{Image: "*complete*", Behaviour: Behaviour{Exits: true, ExitAfter: time.Second}},
}

// behaviourOf returns what p's containers do: the first matching image
// rule, a one-second successful run for pods that do not restart always,
// then the pod's annotations over either.
func behaviourOf(p *api.Pod, rules []Rule) Behaviour {
	var b Behaviour
	matched := false
	if len(p.Spec.Containers) > 0 {
		for _, r := range rules {
			if globMatch(r.Image, p.Spec.Containers[0].Image) {
				b, matched = r.Behaviour, true
				break
			}
		}
	}
	if !matched && p.Spec.RestartPolicy != "" && p.Spec.RestartPolicy != api.RestartAlways {
		b = Behaviour{Exits: true, ExitAfter: time.Second}
	}
	if !matched && len(p.Spec.Containers) > 0 {
		if probe := p.Spec.Containers[0].ReadinessProbe; probe != nil {
			b.ReadyAfter = time.Duration(probe.InitialDelaySeconds) * time.Second
		}
	}
	a := p.Annotations
	dur := func(name string, into *time.Duration) bool {
		d, err := time.ParseDuration(a[AnnotationPrefix+name])
		if err == nil && d >= 0 {
			*into = d
			return true
		}
		return false
	}
	dur("start-after", &b.StartAfter)
	dur("ready-after", &b.ReadyAfter)
	dur("stop-after", &b.StopAfter)
	if dur("exit-after", &b.ExitAfter) {
		b.Exits = true
	}
	if v, err := strconv.ParseInt(a[AnnotationPrefix+"exit-code"], 10, 32); err == nil {
		b.Exits, b.ExitCode = true, int32(v)
	}
	if v, err := strconv.ParseBool(a[AnnotationPrefix+"never-ready"]); err == nil {
		b.NeverReady = v
	}
	return b
}

// globMatch reports whether s matches pattern, where '*' matches any run
// of characters.
func globMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}
