package kubelet

import (
	"fmt"
	"sync"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
)

// maxLogLines is how many lines are kept per container.
const maxLogLines = 1000

// logStore keeps the simulated containers' log lines, by pod UID and
// container name.
type logStore struct {
	// mu guards lines.
	mu    sync.Mutex
	lines map[string][]string
}

func newLogStore() *logStore { return &logStore{lines: map[string][]string{}} }

func logKey(namespace, pod, container string) string { return namespace + "/" + pod + "/" + container }

func (s *logStore) add(p *api.Pod, container, line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := logKey(p.Namespace, p.Name, container)
	l := append(s.lines[k], line)
	if len(l) > maxLogLines {
		l = l[len(l)-maxLogLines:]
	}
	s.lines[k] = l
}

// Logs returns the log lines of a container of a pod on a simulated node,
// oldest first, and false if the container never ran here. An empty
// container name means the pod's only (or first) container.
func (k *Kubelet) Logs(namespace, pod, container string) ([]string, bool) {
	if container == "" {
		p, err := k.pods.Lister().Namespace(namespace).Get(pod)
		if err != nil || len(p.Spec.Containers) == 0 {
			return nil, false
		}
		container = p.Spec.Containers[0].Name
	}
	k.logs.mu.Lock()
	defer k.logs.mu.Unlock()
	l, ok := k.logs.lines[logKey(namespace, pod, container)]
	return append([]string(nil), l...), ok
}

// logTransitions writes the log lines and events of what changes from
// p's status to next.
func (k *Kubelet) logTransitions(p *api.Pod, next api.PodStatus) {
	src := kit.Source{Component: Name, Host: p.Spec.NodeName}
	ref := api.RefTo(&p.ObjectMeta, "v1", "Pod")
	for _, cs := range next.ContainerStatuses {
		old, _ := containerStatus(p.Status.ContainerStatuses, cs.Name)
		cref := ref
		cref.FieldPath = fmt.Sprintf("spec.containers{%s}", cs.Name)
		switch {
		case cs.State.Running != nil && (old.State.Running == nil || old.RestartCount != cs.RestartCount):
			if cs.RestartCount == 0 {
				k.env.Events.Eventf(src, cref, api.EventNormal, "Pulled", "Container image %q already present on machine", cs.Image)
			}
			k.env.Events.Eventf(src, cref, api.EventNormal, "Created", "Created container: %s", cs.Name)
			k.env.Events.Eventf(src, cref, api.EventNormal, "Started", "Started container %s", cs.Name)
			k.logs.add(p, cs.Name, fmt.Sprintf("%s simulated container %s started (image %s, restart %d)", cs.State.Running.StartedAt.UTC().Format("2006-01-02T15:04:05Z"), cs.Name, cs.Image, cs.RestartCount))
		case cs.LastState.Terminated != nil && (old.LastState.Terminated == nil || !old.LastState.Terminated.FinishedAt.Equal(cs.LastState.Terminated.FinishedAt.Time)):
			t := cs.LastState.Terminated
			k.env.Events.Eventf(src, cref, api.EventWarning, "BackOff", "Back-off restarting failed container %s in pod %s_%s(%s)", cs.Name, p.Name, p.Namespace, p.UID)
			k.logs.add(p, cs.Name, fmt.Sprintf("%s exited with code %d", t.FinishedAt.UTC().Format("2006-01-02T15:04:05Z"), t.ExitCode))
		case cs.State.Terminated != nil && old.State.Terminated == nil:
			t := cs.State.Terminated
			k.logs.add(p, cs.Name, fmt.Sprintf("%s exited with code %d", t.FinishedAt.UTC().Format("2006-01-02T15:04:05Z"), t.ExitCode))
		}
	}
}

// LogText returns the log of a container as pods/log serves it: one
// line after another, each ending in a newline.
func (k *Kubelet) LogText(namespace, pod, container string) ([]byte, bool) {
	lines, ok := k.Logs(namespace, pod, container)
	if !ok {
		return nil, false
	}
	var b []byte
	for _, l := range lines {
		b = append(append(b, l...), '\n')
	}
	return b, true
}
