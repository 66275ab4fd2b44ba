package builtin

import (
	"net"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// Answers of the pod and node subresources that reach a kubelet
// (pods/log, exec, attach, portforward, nodes/proxy) on a server without
// kubelets: the real server's answer when none listens.

// ConnectAnswer is the answer to a kubelet-bound request: Status, or
// NoContent for the empty log of a pod that is not scheduled.
type ConnectAnswer struct {
	Status    *meta.Status
	NoContent bool
}

// kubeletPort is the kubelet's default port, used when a Node does not
// name its own.
const kubeletPort = 10250

// PodConnect answers sub ("log", "exec", "attach", "portforward") of a
// stored Pod (pod holds its members other than metadata) for container
// ("" picks the only one). node holds the members of the Node the pod is
// bound to, nil when there is no such Node. portforward takes no
// container.
func PodConnect(sub, namespace, name string, pod *jsonv.Value, container string, node *jsonv.Value) ConnectAnswer {
	spec := sub2(pod, "spec")
	if sub != "portforward" {
		c, st := podContainer(name, spec, container)
		if st != nil {
			return ConnectAnswer{Status: st}
		}
		container = c
	}
	nodeName := str(spec, "nodeName")
	if nodeName == "" {
		if sub == "log" {
			return ConnectAnswer{NoContent: true}
		}
		return ConnectAnswer{Status: apistatus.New(400, meta.ReasonBadRequest, "pod "+name+" does not have a host assigned")}
	}
	if node == nil {
		// The real server looks the node up through the pods' registry
		// and names the kind so.
		st := apistatus.New(404, meta.ReasonNotFound, `pods "`+nodeName+`" not found`)
		st.Details = &meta.StatusDetails{Name: nodeName, Kind: "pods"}
		return ConnectAnswer{Status: st}
	}
	host, port, st := kubeletAddress(node)
	if st != nil {
		return ConnectAnswer{Status: st}
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	path := map[string]string{"log": "containerLogs", "exec": "exec", "attach": "attach", "portforward": "portForward"}[sub]
	u := "https://" + addr + "/" + path + "/" + namespace + "/" + name
	if sub != "portforward" {
		u += "/" + container
	}
	verb := "Get"
	if sub != "log" {
		verb = "Post"
	}
	return ConnectAnswer{Status: apistatus.New(500, "", verb+` "`+u+`": dial tcp `+addr+`: connect: connection refused`)}
}

// NodeProxy answers nodes/{name}/proxy for a stored Node: the real server
// refuses a loopback or link-local kubelet address and cannot reach any
// other.
func NodeProxy(node *jsonv.Value, path string) *meta.Status {
	host, port, st := kubeletAddress(node)
	if st != nil {
		return st
	}
	if ip := net.ParseIP(host); ip != nil && (ip.IsLoopback() || ip.IsLinkLocalUnicast()) {
		return apistatus.New(400, meta.ReasonBadRequest, "address not allowed")
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	return apistatus.New(503, meta.ReasonServiceUnavailable, `error trying to reach service: dial tcp `+addr+`: connect: connection refused`)
}

// podContainer picks the container a request names, with the real
// server's refusals.
func podContainer(pod string, spec *jsonv.Value, container string) (string, *meta.Status) {
	var names []string
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		each(spec, list, func(c *jsonv.Value) { names = append(names, str(c, "name")) })
	}
	regular := items(spec, "containers")
	if container == "" {
		switch len(regular) {
		case 1:
			return str(regular[0], "name"), nil
		case 0:
			return "", apistatus.New(400, meta.ReasonBadRequest, "a container name must be specified for pod "+pod)
		}
		return "", apistatus.New(400, meta.ReasonBadRequest, "a container name must be specified for pod "+pod+", choose one of: ["+strings.Join(names, " ")+"]")
	}
	for _, n := range names {
		if n == container {
			return container, nil
		}
	}
	return "", apistatus.New(400, meta.ReasonBadRequest, "container "+container+" is not valid for pod "+pod)
}

// kubeletAddress reads where a Node's kubelet listens: the first address
// in the real server's preference order and the daemon endpoint's port.
func kubeletAddress(node *jsonv.Value) (string, int, *meta.Status) {
	status := sub2(node, "status")
	byType := map[string]string{}
	var known []string
	each(status, "addresses", func(a *jsonv.Value) {
		t, addr := str(a, "type"), str(a, "address")
		known = append(known, "{"+t+" "+addr+"}")
		if _, ok := byType[t]; !ok {
			byType[t] = addr
		}
	})
	host := ""
	for _, t := range []string{"Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"} {
		if a := byType[t]; a != "" {
			host = a
			break
		}
	}
	if host == "" {
		return "", 0, apistatus.New(500, "", "no preferred addresses found; known addresses: ["+strings.Join(known, " ")+"]")
	}
	port := kubeletPort
	if de := present(status, "daemonEndpoints"); de != nil {
		if ke := present(de, "kubeletEndpoint"); ke != nil {
			if n, ok := integer(ke, "Port"); ok && n > 0 {
				port = int(n)
			}
		}
	}
	return host, port, nil
}

// sub2 is sub for a possibly nil object.
func sub2(v *jsonv.Value, key string) *jsonv.Value {
	if v == nil {
		return &jsonv.Value{Kind: jsonv.Object}
	}
	return sub(v, key)
}
