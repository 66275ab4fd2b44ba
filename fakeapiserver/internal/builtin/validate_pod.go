package builtin

import (
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// podOptions says where a pod spec sits: in a Pod, or in a template.
type podOptions struct {
	// pod is set for a Pod's own spec.
	pod bool
	// annotations are the Pod's or the template's, read by the rules of
	// pod-specific annotations; annotationsPath is where they sit.
	annotations     map[string]string
	annotationsPath string
}

// podSpec checks a pod spec in the real validator's order: grace period,
// volumes, containers, init containers, restart and DNS policies, node
// selector, service account, deadlines, tolerations.
func (v *validator) podSpec(path string, spec *jsonv.Value, opts podOptions) {
	if spec == nil {
		v.required(path+".containers", "")
		return
	}
	v.podAnnotations(opts.annotationsPath, opts.annotations, spec)
	if unset(spec, "terminationGracePeriodSeconds") {
		v.required(path+".terminationGracePeriodSeconds", "")
	}
	vols := v.volumes(path+".volumes", spec)
	_, mirror := opts.annotations[mirrorPodAnnotation]
	v.podResourceClaims(path+".resourceClaims", spec, mirror && opts.pod)
	v.containers(path+".containers", spec, "containers", vols, true)
	v.containers(path+".initContainers", spec, "initContainers", vols, false)
	v.podResources(path, spec)
	switch rp := str(spec, "restartPolicy"); rp {
	case "Always", "OnFailure", "Never":
	case "":
		v.required(path+".restartPolicy", "")
	default:
		v.notSupported(path+".restartPolicy", rp, "Always", "OnFailure", "Never")
	}
	switch dp := str(spec, "dnsPolicy"); dp {
	case "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None":
	case "":
		v.required(path+".dnsPolicy", "")
	default:
		v.notSupported(path+".dnsPolicy", dp, "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
	}
	v.labels(path+".nodeSelector", stringMap(spec, "nodeSelector"))
	if sa := str(spec, "serviceAccountName"); sa != "" {
		v.problems(path+".serviceAccountName", sa, validation.SubdomainProblems(sa))
	}
	if n := str(spec, "nodeName"); n != "" {
		v.problems(path+".nodeName", n, validation.SubdomainProblems(n))
	}
	if n, ok := integer(spec, "activeDeadlineSeconds"); ok && (n < 1 || n > 2147483647) {
		v.invalidRaw(path+".activeDeadlineSeconds", strconv.FormatInt(n, 10), "must be between 1 and 2147483647, inclusive")
	}
	for _, k := range []string{"hostname", "subdomain"} {
		if h := str(spec, k); h != "" {
			v.problems(path+"."+k, h, validation.LabelProblems(h))
		}
	}
	for i, t := range items(spec, "tolerations") {
		v.toleration(index(path+".tolerations", i), t)
	}
	v.hostNamespaces(path, spec)
	v.affinity(path+".affinity", present(spec, "affinity"))
	v.topologySpread(path+".topologySpreadConstraints", spec)
	v.podSecurityContext(path+".securityContext", spec)
	v.dnsConfig(path+".dnsConfig", spec)
	v.hostAliases(path+".hostAliases", spec)
	for i, g := range items(spec, "readinessGates") {
		ct := str(g, "conditionType")
		v.problems(index(path+".readinessGates", i)+".conditionType", ct, qualifiedNameProblems(ct))
	}
	v.schedulingGates(path+".schedulingGates", spec)
	v.windowsHostProcess(path, spec)
	v.userNamespace(path, spec)
	v.hostnameOverride(path, spec)
	v.podOverhead(path+".overhead", spec)
	v.podOS(path, spec)
	v.fileKeyRefVolumes(path, spec)
	v.annotationsMatchFields(path, opts.annotations, spec)
}

// hostNamespaces checks the host namespace rules: a process namespace
// is not shared with the host's PID namespace, and on the host network
// a regular container's host port is its container port.
func (v *validator) hostNamespaces(path string, spec *jsonv.Value) {
	isTrue := func(k string) bool { b := spec.Get(k); return b != nil && b.Kind == jsonv.Bool && b.B }
	if isTrue("shareProcessNamespace") && isTrue("hostPID") {
		v.invalidRaw(path+".shareProcessNamespace", "true", "ShareProcessNamespace and HostPID cannot both be enabled")
	}
	if !isTrue("hostNetwork") {
		return
	}
	// Only the regular containers are checked, as on the real server.
	for ci, c := range items(spec, "containers") {
		for pi, port := range items(c, "ports") {
			hp, _ := integer(port, "hostPort")
			cp, _ := integer(port, "containerPort")
			if hp != 0 && hp != cp {
				v.invalidRaw(index(index(path+".containers", ci)+".ports", pi)+".hostPort", strconv.FormatInt(hp, 10), "must match `containerPort` when `hostNetwork` is true")
			}
		}
	}
}

// userNamespace checks a pod in a user namespace of its own (hostUsers
// false): it shares no other namespace with the host, and no container
// uses a block device.
func (v *validator) userNamespace(path string, spec *jsonv.Value) {
	const detail = "when `hostUsers` is false"
	if hu, ok := setBool(spec, "hostUsers"); !ok || hu {
		return
	}
	if isTrue(spec, "hostNetwork") {
		v.forbidden(path+".hostNetwork", detail)
	}
	// The real validator names these two in Go's spelling.
	if isTrue(spec, "hostPID") {
		v.forbidden(path+".HostPID", detail)
	}
	if isTrue(spec, "hostIPC") {
		v.forbidden(path+".HostIPC", detail)
	}
	eachPodContainer(path, spec, func(p string, c *jsonv.Value) {
		if !empty(c, "volumeDevices") {
			v.forbidden(p+".volumeDevices", detail)
		}
	})
}

// toleration checks one toleration: a qualified key; the operator
// Exists when there is no key; tolerationSeconds only with the effect
// NoExecute; a label value for Equal, none for Exists (Lt and Gt are
// refused: TaintTolerationComparisonOperators is off in 1.37); a known
// effect.
func (v *validator) toleration(path string, t *jsonv.Value) {
	key := str(t, "key")
	if key != "" {
		v.problems(path+".key", key, qualifiedNameProblems(key))
	}
	op := str(t, "operator")
	if key == "" && op != "Exists" {
		v.invalid(path+".operator", op, "operator must be Exists when `key` is empty, which means \"match all values and all keys\"")
	}
	effect := str(t, "effect")
	if !unset(t, "tolerationSeconds") && effect != "NoExecute" {
		v.invalid(path+".effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set")
	}
	switch op {
	case "", "Equal":
		if probs := validation.LabelValueProblems(str(t, "value")); len(probs) > 0 {
			v.invalid(path+".operator", str(t, "value"), strings.Join(probs, ";"))
		}
	case "Exists":
		if str(t, "value") != "" {
			v.invalid(path+".operator", str(t, "value"), "value must be empty when `operator` is 'Exists'")
		}
	case "Lt", "Gt":
		v.notSupported(path+".operator", op, "Equal", "Exists", "Lt", "Gt")
	default:
		v.notSupported(path+".operator", op, "Equal", "Exists")
	}
	if effect != "" {
		switch effect {
		case "NoSchedule", "PreferNoSchedule", "NoExecute":
		default:
			v.notSupported(path+".effect", effect, "NoSchedule", "PreferNoSchedule", "NoExecute")
		}
	}
}

// volumes checks the pod's volumes and returns their names.
func (v *validator) volumes(path string, spec *jsonv.Value) map[string]bool {
	// A volume with any error is not one a mount can name, as on the
	// real server.
	names := map[string]bool{}
	for i, vol := range items(spec, "volumes") {
		p := index(path, i)
		before := len(v.errs)
		n := 0
		for _, s := range volumeSources {
			if unset(vol, s) {
				continue
			}
			n++
			if n > 1 {
				v.forbidden(p+"."+s, "may not specify more than 1 volume type")
				continue
			}
			v.volumeSource(p, s, vol)
		}
		if n == 0 {
			v.required(p, "must specify a volume type")
		}
		name := str(vol, "name")
		switch {
		case name == "":
			v.required(p+".name", "")
		case len(validation.LabelProblems(name)) > 0:
			v.problems(p+".name", name, validation.LabelProblems(name))
		case names[name]:
			v.duplicate(p+".name", name)
		case len(v.errs) == before:
			names[name] = true
		}
	}
	return names
}

// containers checks a container list; regular containers must not be
// empty.
func (v *validator) containers(path string, spec *jsonv.Value, k string, vols map[string]bool, required bool) {
	list := items(spec, k)
	if len(list) == 0 {
		if required {
			v.required(path, "")
		}
		return
	}
	hostUsers := true
	if b, ok := setBool(spec, "hostUsers"); ok {
		hostUsers = b
	}
	// A name is unique among the regular and init containers: an init
	// container's is checked against every regular one.
	init := k == "initContainers"
	names := map[string]bool{}
	if init {
		for _, c := range items(spec, "containers") {
			names[str(c, "name")] = true
		}
	}
	for i, c := range list {
		p := index(path, i)
		v.container(p, c, spec, vols, hostUsers)
		v.resizePolicy(p+".resizePolicy", c, str(spec, "restartPolicy"), init)
		v.containerRestartPolicy(p, c, init)
		name := str(c, "name")
		if names[name] {
			v.duplicate(p+".name", name)
		} else if !init || name != "" {
			names[name] = true
		}
		if init {
			v.hostPortConflicts(path, []*jsonv.Value{c})
		}
		v.containerLifecycle(p, c, spec, init)
		v.containerProbes(p, c, init)
	}
	if !init {
		v.hostPortConflicts(path, list)
	}
}

// container checks what init and regular containers share; spec is the
// pod's, hostUsers says whether it runs in the host's user namespace.
func (v *validator) container(p string, c, spec *jsonv.Value, vols map[string]bool, hostUsers bool) {
	name := str(c, "name")
	if name == "" {
		v.required(p+".name", "")
	} else {
		v.problems(p+".name", name, validation.LabelProblems(name))
	}
	if str(c, "image") == "" {
		v.required(p+".image", "")
	}
	switch tmp := str(c, "terminationMessagePolicy"); tmp {
	case "File", "FallbackToLogsOnError":
	case "":
		v.required(p+".terminationMessagePolicy", "")
	default:
		v.notSupported(p+".terminationMessagePolicy", tmp, "File", "FallbackToLogsOnError")
	}
	v.containerPorts(p+".ports", c)
	v.env(p+".env", c)
	v.envFrom(p+".envFrom", c)
	v.volumeMounts(p+".volumeMounts", c, vols)
	v.volumeDevices(p+".volumeDevices", c, spec)
	switch pp := str(c, "imagePullPolicy"); pp {
	case "Always", "IfNotPresent", "Never":
	case "":
		v.required(p+".imagePullPolicy", "")
	default:
		v.notSupported(p+".imagePullPolicy", pp, "Always", "IfNotPresent", "Never")
	}
	v.resources(p+".resources", present(c, "resources"))
	v.resourceClaimNames(p+".resources.claims", sub(c, "resources"), spec)
	v.containerSecurityContext(p+".securityContext", c, hostUsers)
}

// containerPorts checks a container's ports.
func (v *validator) containerPorts(path string, c *jsonv.Value) {
	names := map[string]bool{}
	for i, port := range items(c, "ports") {
		p := index(path, i)
		if name := str(port, "name"); name != "" {
			if probs := portNameProblems(name); len(probs) > 0 {
				v.problems(p+".name", name, probs)
			} else if names[name] {
				v.duplicate(p+".name", name)
			} else {
				names[name] = true
			}
		}
		if n, _ := integer(port, "containerPort"); n == 0 {
			v.required(p+".containerPort", "")
		} else {
			v.portRange(p+".containerPort", n)
		}
		if n, _ := integer(port, "hostPort"); n != 0 {
			v.portRange(p+".hostPort", n)
		}
		v.protocol(p+".protocol", str(port, "protocol"))
	}
}

// protocol checks a port protocol (required: the defaulter sets TCP).
func (v *validator) protocol(field, proto string) {
	switch proto {
	case "TCP", "UDP", "SCTP":
	case "":
		v.required(field, "")
	default:
		v.notSupported(field, proto, "SCTP", "TCP", "UDP")
	}
}

// env checks a container's environment variables.
func (v *validator) env(path string, c *jsonv.Value) {
	for i, e := range items(c, "env") {
		p := index(path, i)
		name := str(e, "name")
		if name == "" {
			v.required(p+".name", "")
		} else {
			v.problems(p+".name", name, envVarNameProblems(name))
		}
		from := present(e, "valueFrom")
		if from == nil {
			continue
		}
		sources := 0
		for _, s := range []string{"fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef"} {
			if !unset(from, s) {
				sources++
			}
		}
		switch {
		case sources == 0:
			v.invalid(p+".valueFrom", "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`")
		case str(e, "value") != "":
			v.invalid(p+".valueFrom", "", "may not be specified when `value` is not empty")
		case sources > 1:
			v.invalid(p+".valueFrom", "", "may not have more than one field specified at a time")
		}
	}
}

// volumeMounts checks a container's mounts against the pod's volumes.
func (v *validator) volumeMounts(path string, c *jsonv.Value, vols map[string]bool) {
	paths := map[string]bool{}
	for i, m := range items(c, "volumeMounts") {
		p := index(path, i)
		name := str(m, "name")
		if name == "" {
			v.required(p+".name", "")
		}
		if !vols[name] {
			v.notFound(p+".name", name)
		}
		mp := str(m, "mountPath")
		if mp == "" {
			v.required(p+".mountPath", "")
		}
		if paths[mp] {
			v.invalid(p+".mountPath", mp, "must be unique")
		}
		paths[mp] = true
		for _, d := range items(c, "volumeDevices") {
			if str(d, "name") == name {
				v.invalid(p+".name", name, "must not already exist in volumeDevices")
				break
			}
		}
		for _, d := range items(c, "volumeDevices") {
			if str(d, "devicePath") == mp {
				v.invalid(p+".mountPath", mp, "must not already exist as a path in volumeDevices")
				break
			}
		}
	}
}

// probe checks what every probe kind shares: one handler, non-negative
// timings, a positive grace period of its own.
func (v *validator) probe(path string, p *jsonv.Value) {
	handlers := 0
	for _, h := range []string{"exec", "httpGet", "tcpSocket", "grpc"} {
		hv := present(p, h)
		if hv == nil {
			continue
		}
		if handlers > 0 {
			v.forbidden(path+"."+h, "may not specify more than 1 handler type")
			continue
		}
		handlers++
		switch h {
		case "httpGet":
			v.httpGetAction(path+".httpGet", hv)
		case "tcpSocket":
			v.handlerPort(path+".tcpSocket.port", hv.Get("port"))
		case "grpc":
			if n, ok := integer(hv, "port"); ok {
				v.portRange(path+".grpc.port", n)
			}
		case "exec":
			if empty(hv, "command") {
				v.required(path+".exec.command", "")
			}
		}
	}
	if handlers == 0 {
		v.required(path, "must specify a handler type")
	}
	for _, k := range []string{"initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"} {
		v.nonNegative(p, k, path+"."+k)
	}
	v.probeGracePeriod(path, p)
}

// handlerPort checks a handler's port: a number in range or a port name.
func (v *validator) handlerPort(field string, port *jsonv.Value) {
	switch {
	case port == nil || port.Kind == jsonv.Null:
		v.portRange(field, 0)
	case port.Kind == jsonv.Number:
		n, _ := strconv.ParseInt(port.Str, 10, 64)
		v.portRange(field, n)
	case port.Kind == jsonv.String:
		v.problems(field, port.Str, portNameProblems(port.Str))
	}
}

// podTemplate checks a template's labels and pod spec.
func (v *validator) podTemplate(path string, t *jsonv.Value) {
	md := present(t, "metadata")
	if md != nil {
		v.labels(path+".metadata.labels", stringMap(md, "labels"))
	}
	v.podSpec(path+".spec", sub(t, "spec"), podOptions{annotations: stringMap(md, "annotations"), annotationsPath: path + ".annotations"})
	if !empty(sub(t, "spec"), "ephemeralContainers") {
		v.forbidden(path+".spec.ephemeralContainers", "ephemeral containers not allowed in pod template")
	}
}

// dnsConfig checks a pod's DNS settings: a configuration with a
// nameserver when the policy is None, at most 3 nameservers that are IP
// addresses, at most 32 search domains of 2048 characters in all, and
// options with names.
func (v *validator) dnsConfig(p string, spec *jsonv.Value) {
	dc := present(spec, "dnsConfig")
	servers := stringsOf(dc, "nameservers")
	if str(spec, "dnsPolicy") == "None" {
		if dc == nil {
			v.required(p, "must provide `dnsConfig` when `dnsPolicy` is None")
			return
		}
		if len(servers) == 0 {
			v.required(p+".nameservers", "must provide at least one DNS nameserver when `dnsPolicy` is None")
			return
		}
	}
	if dc == nil {
		return
	}
	if len(servers) > 3 {
		v.add(invalidList(p+".nameservers", servers, "must not have more than 3 nameservers"))
	}
	for i, ns := range servers {
		v.problems(index(p+".nameservers", i), ns, legacyIPProblems(ns))
	}
	searches := stringsOf(dc, "searches")
	if len(searches) > 32 {
		v.add(invalidList(p+".searches", searches, "must not have more than 32 search paths"))
	}
	if len(strings.Join(searches, " ")) > 2048 {
		v.add(invalidList(p+".searches", searches, "must not have more than 2048 characters (including spaces) in the search list"))
	}
	for i, s := range searches {
		if s != "." {
			s = strings.TrimSuffix(s, ".")
			v.problems(index(p+".searches", i), s, searchDomainProblems(s))
		}
	}
	for i, o := range items(dc, "options") {
		if str(o, "name") == "" {
			v.required(index(p+".options", i), "must not be empty")
		}
	}
}

// hostAliases checks a pod's host aliases: IP addresses and subdomains.
func (v *validator) hostAliases(p string, spec *jsonv.Value) {
	for i, a := range items(spec, "hostAliases") {
		ap := index(p, i)
		ip := str(a, "ip")
		v.problems(ap+".ip", ip, legacyIPProblems(ip))
		for j, h := range stringsOf(a, "hostnames") {
			v.problems(index(ap+".hostnames", j), h, validation.SubdomainProblems(h))
		}
	}
}
