package builtin

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// Pod spec defaults, as the core/v1 defaulters set them on a Pod and on
// every pod template (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
// CronJob, ReplicationController, PodTemplate).

// defaultPod defaults a Pod: its spec, what only a Pod (not a template)
// gets, and its status.
func defaultPod(obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	podOnly(spec)
	podSpec(spec)
	if status := child(obj, "status"); status != nil {
		podStatus(status)
	}
}

// podOnly is what the Pod defaulter adds beyond the pod spec's: a negative
// grace period becomes 1, limits are copied into missing requests,
// enableServiceLinks is true, and a host-network pod's container ports get
// a hostPort equal to the containerPort.
func podOnly(spec *jsonv.Value) {
	if g := spec.Get("terminationGracePeriodSeconds"); g != nil && g.Kind == jsonv.Number && len(g.Str) > 0 && g.Str[0] == '-' {
		spec.Set("terminationGracePeriodSeconds", number(1))
	}
	ptrBool(spec, "enableServiceLinks", true)
	hostNetwork := false
	if h := spec.Get("hostNetwork"); h != nil && h.Kind == jsonv.Bool {
		hostNetwork = h.B
	}
	for _, list := range []string{"containers", "initContainers"} {
		each(spec, list, func(c *jsonv.Value) {
			requestsFromLimits(c)
			if hostNetwork {
				each(c, "ports", func(p *jsonv.Value) {
					if empty(p, "hostPort") {
						if cp := p.Get("containerPort"); cp != nil {
							p.Set("hostPort", *cp)
						}
					}
				})
			}
		})
	}
}

// requestsFromLimits copies each limit a container has no request for.
func requestsFromLimits(c *jsonv.Value) {
	res := present(c, "resources")
	if res == nil {
		return
	}
	limits := present(res, "limits")
	if limits == nil {
		return
	}
	add := make([]jsonv.Member, 0, len(limits.Obj))
	reqs := present(res, "requests")
	for _, m := range limits.Obj {
		if reqs == nil || reqs.Get(m.Key) == nil {
			add = append(add, jsonv.Member{Key: m.Key, Value: m.Value.Clone()})
		}
	}
	if len(add) == 0 {
		return
	}
	reqs = child(res, "requests")
	if reqs == nil {
		return
	}
	reqs.Obj = append(reqs.Obj, add...)
}

// podSpec sets the pod spec defaults shared by Pods and pod templates.
func podSpec(spec *jsonv.Value) {
	// serviceAccount is the deprecated twin of serviceAccountName: the
	// name wins, and the two end up equal.
	sa := str(spec, "serviceAccountName")
	if sa == "" {
		sa = str(spec, "serviceAccount")
		if sa != "" {
			spec.Set("serviceAccountName", jsonv.NewString(sa))
		}
	}
	if sa != "" {
		spec.Set("serviceAccount", jsonv.NewString(sa))
	} else if spec.Get("serviceAccount") != nil {
		spec.Delete("serviceAccount")
	}
	orString(spec, "dnsPolicy", "ClusterFirst")
	orString(spec, "restartPolicy", "Always")
	ptrObject(spec, "securityContext")
	ptrInt(spec, "terminationGracePeriodSeconds", 30)
	orString(spec, "schedulerName", "default-scheduler")
	each(spec, "volumes", volume)
	each(spec, "initContainers", container)
	each(spec, "containers", container)
	each(spec, "ephemeralContainers", container)
}

// container defaults one container (init, ephemeral and regular alike).
func container(c *jsonv.Value) {
	if empty(c, "imagePullPolicy") {
		c.Set("imagePullPolicy", jsonv.NewString(pullPolicy(str(c, "image"))))
	}
	orString(c, "terminationMessagePath", "/dev/termination-log")
	orString(c, "terminationMessagePolicy", "File")
	each(c, "ports", func(p *jsonv.Value) { orString(p, "protocol", "TCP") })
	each(c, "env", func(e *jsonv.Value) {
		from := present(e, "valueFrom")
		if from == nil {
			return
		}
		if f := present(from, "fieldRef"); f != nil {
			orString(f, "apiVersion", "v1")
		}
		if f := present(from, "fileKeyRef"); f != nil {
			ptrBool(f, "optional", false)
		}
	})
	for _, key := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		if p := present(c, key); p != nil {
			probe(p)
		}
	}
	if lc := present(c, "lifecycle"); lc != nil {
		for _, key := range []string{"postStart", "preStop"} {
			if h := present(lc, key); h != nil {
				if get := present(h, "httpGet"); get != nil {
					httpGet(get)
				}
			}
		}
	}
}

// probe defaults a liveness, readiness or startup probe.
func probe(p *jsonv.Value) {
	orInt(p, "timeoutSeconds", 1)
	orInt(p, "periodSeconds", 10)
	orInt(p, "successThreshold", 1)
	orInt(p, "failureThreshold", 3)
	if get := present(p, "httpGet"); get != nil {
		httpGet(get)
	}
	if g := present(p, "grpc"); g != nil {
		ptrString(g, "service", "")
	}
}

// httpGet defaults an HTTP probe or lifecycle handler.
func httpGet(get *jsonv.Value) {
	orString(get, "path", "/")
	orString(get, "scheme", "HTTP")
}

// volumeSources are the members of a Volume that name its source: a volume
// with none of them is an emptyDir.
var volumeSources = []string{
	"hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo",
	"secret", "nfs", "iscsi", "glusterfs", "persistentVolumeClaim", "rbd",
	"flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
	"azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk",
	"photonPersistentDisk", "projected", "portworxVolume", "scaleIO",
	"storageos", "csi", "ephemeral", "image",
}

// volume defaults one pod volume.
func volume(v *jsonv.Value) {
	hasSource := false
	for _, s := range volumeSources {
		if !unset(v, s) {
			hasSource = true
			break
		}
	}
	if !hasSource {
		v.Set("emptyDir", jsonv.NewObject())
	}
	if s := present(v, "image"); s != nil && empty(s, "pullPolicy") {
		s.Set("pullPolicy", jsonv.NewString(pullPolicy(str(s, "reference"))))
	}
	if s := present(v, "hostPath"); s != nil {
		ptrString(s, "type", "")
	}
	for _, key := range []string{"secret", "configMap", "downwardAPI", "projected"} {
		if s := present(v, key); s != nil {
			ptrInt(s, "defaultMode", 0o644)
		}
	}
	if s := present(v, "downwardAPI"); s != nil {
		downwardAPIItems(s)
	}
	if s := present(v, "projected"); s != nil {
		each(s, "sources", func(src *jsonv.Value) {
			if d := present(src, "downwardAPI"); d != nil {
				downwardAPIItems(d)
			}
			if t := present(src, "serviceAccountToken"); t != nil {
				ptrInt(t, "expirationSeconds", 3600)
			}
		})
	}
	if s := present(v, "ephemeral"); s != nil {
		if t := present(s, "volumeClaimTemplate"); t != nil {
			if spec := child(t, "spec"); spec != nil {
				pvcSpec(spec)
			}
		}
	}
	volumeSourceDefaults(v)
}

// downwardAPIItems defaults the fieldRef of each downward API item.
func downwardAPIItems(s *jsonv.Value) {
	each(s, "items", func(it *jsonv.Value) {
		if f := present(it, "fieldRef"); f != nil {
			orString(f, "apiVersion", "v1")
		}
	})
}

// volumeSourceDefaults sets the declared defaults of the volume sources a
// Volume and a PersistentVolume share (iSCSI, RBD, Azure disk, ScaleIO).
func volumeSourceDefaults(v *jsonv.Value) {
	if s := present(v, "iscsi"); s != nil {
		orString(s, "iscsiInterface", "default")
	}
	if s := present(v, "rbd"); s != nil {
		orString(s, "pool", "rbd")
		orString(s, "user", "admin")
		orString(s, "keyring", "/etc/ceph/keyring")
	}
	if s := present(v, "azureDisk"); s != nil {
		ptrString(s, "cachingMode", "ReadWrite")
		ptrString(s, "fsType", "ext4")
		ptrBool(s, "readOnly", false)
		ptrString(s, "kind", "Shared")
	}
	if s := present(v, "scaleIO"); s != nil {
		orString(s, "storageMode", "ThinProvisioned")
		orString(s, "fsType", "xfs")
	}
}

// podStatus keeps status.podIP and status.podIPs consistent: the first of
// podIPs is podIP.
func podStatus(status *jsonv.Value) {
	ip := str(status, "podIP")
	ips := status.Get("podIPs")
	hasIPs := ips != nil && ips.Kind == jsonv.Array && len(ips.Arr) > 0
	switch {
	case ip != "" && !hasIPs:
		status.Set("podIPs", jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{object(jsonv.Member{Key: "ip", Value: jsonv.NewString(ip)})}})
	case ip == "" && hasIPs:
		status.Set("podIP", jsonv.NewString(str(&ips.Arr[0], "ip")))
	case ip != "" && hasIPs && str(&ips.Arr[0], "ip") != ip:
		status.Set("podIPs", jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{object(jsonv.Member{Key: "ip", Value: jsonv.NewString(ip)})}})
	}
}

// podTemplate defaults the pod spec inside a template object (the
// template's own metadata is left alone).
func podTemplate(template *jsonv.Value) {
	if template == nil {
		return
	}
	if spec := child(template, "spec"); spec != nil {
		podSpec(spec)
	}
}
