package fakeapiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
)

// More kubectl commands against the fake server. Each test checks what
// kubectl printed and what the server holds afterwards, read back over
// HTTP.

// background is a kubectl process running while the test acts on the
// server; its stdout arrives line by line.
type background struct {
	cancel context.CancelFunc
	lines  chan string
	done   chan struct{}
	stderr strings.Builder
	err    error
}

// command builds a kubectl command with the test's kubeconfig, cache,
// HOME and temporary directory, and extra environment variables.
func (k *kubectl) command(ctx context.Context, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", k.kubeconfig, "--cache-dir", k.cacheDir}, args...)...)
	cmd.Env = append(os.Environ(), append([]string{"HOME=" + k.dir, "KUBECONFIG=", "TMPDIR=" + k.dir}, env...)...)
	return cmd
}

// kubectlTimeout bounds one kubectl command. kubectl create and apply
// read the server's whole OpenAPI document first; under the race
// detector on a loaded two-core machine one such call has taken more
// than 30 s, so the bound is generous: it is there to stop a hang.
const kubectlTimeout = 2 * time.Minute

// runEnv runs kubectl with extra environment variables and returns its
// stdout, stderr and error.
func (k *kubectl) runEnv(env []string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	cmd := k.command(ctx, env, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// start runs kubectl in the background until it exits or the test stops
// it; the test's cleanup stops it and waits for it.
func (k *kubectl) start(args ...string) *background {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	cmd := k.command(ctx, nil, args...)
	b := &background{cancel: cancel, lines: make(chan string, 100), done: make(chan struct{})}
	cmd.Stderr = &b.stderr
	out, err := cmd.StdoutPipe()
	require.NoError(k.t, err)
	require.NoError(k.t, cmd.Start())
	go func() {
		defer close(b.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			b.lines <- sc.Text()
		}
		close(b.lines)
		b.err = cmd.Wait()
	}()
	k.t.Cleanup(b.stop)
	return b
}

// stop ends the process and waits for it.
func (b *background) stop() {
	b.cancel()
	for range b.lines {
	}
	<-b.done
}

// wait waits for the process to exit on its own and returns its whole
// stdout.
func (b *background) wait(t *testing.T) string {
	t.Helper()
	var out []string
	for l := range b.lines {
		out = append(out, l)
	}
	<-b.done
	require.NoError(t, b.err, "stderr: %s", b.stderr.String())
	return strings.Join(out, "\n") + "\n"
}

// next returns the next line of stdout, failing the test if none comes
// before ctx ends.
func (b *background) next(ctx context.Context, t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-b.lines:
		require.True(t, ok, "kubectl ended early; stderr: %s", b.stderr.String())
		return l
	case <-ctx.Done():
		require.FailNow(t, "no line from kubectl", "stderr: %s", b.stderr.String())
		return ""
	}
}

// object reads path over HTTP and decodes it, requiring 200.
func (c *testClient) object(path string) map[string]any {
	c.t.Helper()
	r := c.get(path)
	require.Equal(c.t, http.StatusOK, r.code, "GET %s: %s", path, r.body)
	return r.object(c.t)
}

// dig follows keys into nested maps; nil if a key is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func TestKubectlGetWatchOutputWatchEvents(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	ctx := testContext(t)
	c.mustCreate("/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"first"},"data":{"a":"1"}}`)

	w := k.start("get", "configmaps", "-w", "--output-watch-events")
	assert.Equal(t, []string{"EVENT", "NAME", "DATA", "AGE"}, strings.Fields(w.next(ctx, t)))
	assert.Equal(t, []string{"ADDED", "first", "1"}, strings.Fields(w.next(ctx, t))[:3])
	require.NoError(t, s.WaitForWatchers(ctx, "configmaps", 1))

	c.mustCreate("/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"second"}}`)
	r := c.do(http.MethodPatch, "/api/v1/namespaces/default/configmaps/second", `{"data":{"x":"1","y":"2"}}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	r = c.do(http.MethodDelete, "/api/v1/namespaces/default/configmaps/second", "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)

	for _, want := range [][]string{{"ADDED", "second", "0"}, {"MODIFIED", "second", "2"}, {"DELETED", "second", "2"}} {
		assert.Equal(t, want, strings.Fields(w.next(ctx, t))[:3])
	}
	w.stop()
	assert.Equal(t, http.StatusNotFound, c.get("/api/v1/namespaces/default/configmaps/second").code)

	// One object: kubectl hides the synthetic ADDED of its watch on
	// metadata.name and prints what follows.
	w = k.start("get", "configmap", "first", "-w", "--output-watch-events", "-o", "name")
	assert.Equal(t, "configmap/first", w.next(ctx, t))
	require.NoError(t, s.WaitForWatchers(ctx, "configmaps", 1))
	r = c.do(http.MethodPatch, "/api/v1/namespaces/default/configmaps/first", `{"data":{"a":"2"}}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, "configmap/first", w.next(ctx, t), "the update")
	assert.Equal(t, "2", dig(c.object("/api/v1/namespaces/default/configmaps/first"), "data", "a"))
}

const deploymentV1 = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web, tier: front}
spec:
  replicas: 2
  minReadySeconds: 5
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx
        ports: [{containerPort: 80}]
      - name: side
        image: busybox
`

func TestKubectlApplyDeploymentTwice(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	const path = "/apis/apps/v1/namespaces/default/deployments/web"

	f := k.file("web.yaml", deploymentV1)
	assert.Equal(t, "deployment.apps/web created\n", k.run("apply", "-f", f))
	assert.Equal(t, "deployment.apps/web unchanged\n", k.run("apply", "-f", f))
	d := c.object(path)
	assert.EqualValues(t, 5, dig(d, "spec", "minReadySeconds"))

	// The second manifest changes an image and drops minReadySeconds, the
	// tier label and the side container.
	v2 := strings.NewReplacer("image: nginx\n", "image: nginx:1.27\n", "  minReadySeconds: 5\n", "", ", tier: front", "",
		"      - name: side\n        image: busybox\n", "").Replace(deploymentV1)
	require.NotEqual(t, deploymentV1, v2)
	f = k.file("web.yaml", v2)
	assert.Equal(t, "deployment.apps/web configured\n", k.run("apply", "-f", f))

	d = c.object(path)
	spec := dig(d, "spec").(map[string]any)
	assert.NotContains(t, spec, "minReadySeconds", "a field dropped from the manifest is removed")
	assert.Equal(t, map[string]any{"app": "web"}, dig(d, "metadata", "labels"))
	containers := dig(spec, "template", "spec", "containers").([]any)
	require.Len(t, containers, 1, "the dropped container is removed")
	assert.Equal(t, "nginx:1.27", dig(containers[0], "image"))
	assert.Equal(t, []any{map[string]any{"containerPort": float64(80), "protocol": "TCP"}}, dig(containers[0], "ports"), "what did not change stays (with its default)")
	assert.EqualValues(t, 2, dig(d, "metadata", "generation"))

	last, _ := dig(d, "metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration").(string)
	require.NotEmpty(t, last)
	var applied map[string]any
	require.NoError(t, json.Unmarshal([]byte(last), &applied))
	assert.Equal(t, "nginx:1.27", dig(dig(applied, "spec", "template", "spec", "containers").([]any)[0], "image"))
	assert.NotContains(t, dig(applied, "spec"), "minReadySeconds", "the annotation holds the latest manifest")

	out := k.run("get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[*].name} {.metadata.generation}")
	assert.Equal(t, "web 2", out)
}

func TestKubectlServerSideApplyConflict(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	const path = "/api/v1/namespaces/default/configmaps/ssa"

	f := k.file("ssa.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {a: \"1\", b: x}\n")
	assert.Equal(t, "configmap/ssa serverside-applied\n", k.run("apply", "--server-side", "-f", f))

	other := k.file("other.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {a: \"2\"}\n")
	out, errOut, err := k.try("apply", "--server-side", "--field-manager=other", "-f", other)
	require.Error(t, err)
	assert.Empty(t, out)
	assert.True(t, strings.HasPrefix(errOut, "error: Apply failed with 1 conflict: conflict with \"kubectl\": .data.a\n"), "stderr: %s", errOut)
	assert.Contains(t, errOut, "re-run the apply\n  command with the `--force-conflicts` flag.")
	assert.Equal(t, "1", dig(c.object(path), "data", "a"), "a conflict changes nothing")

	assert.Equal(t, "configmap/ssa serverside-applied\n", k.run("apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", other))
	cm := c.object(path)
	assert.Equal(t, map[string]any{"a": "2", "b": "x"}, dig(cm, "data"))
	owners := map[string]any{}
	for _, e := range dig(cm, "metadata", "managedFields").([]any) {
		assert.Equal(t, "Apply", dig(e, "operation"))
		owners[dig(e, "manager").(string)] = dig(e, "fieldsV1")
	}
	assert.Equal(t, map[string]any{
		"kubectl": map[string]any{"f:data": map[string]any{"f:b": map[string]any{}}},
		"other":   map[string]any{"f:data": map[string]any{"f:a": map[string]any{}}},
	}, owners, "the forced field moved to the new manager")

	// The first manager no longer owns .data.a: applying without it leaves it.
	again := k.file("again.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {b: z}\n")
	assert.Equal(t, "configmap/ssa serverside-applied\n", k.run("apply", "--server-side", "-f", again))
	assert.Equal(t, map[string]any{"a": "2", "b": "z"}, dig(c.object(path), "data"))
}

func TestKubectlAnnotate(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	const path = "/api/v1/namespaces/default/configmaps/settings"
	c.mustCreate("/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"settings"}}`)

	assert.Equal(t, "configmap/settings annotated\n", k.run("annotate", "configmap", "settings", "team=a", "note=hello world"))
	assert.Equal(t, map[string]any{"team": "a", "note": "hello world"}, dig(c.object(path), "metadata", "annotations"))

	_, errOut, err := k.try("annotate", "configmap", "settings", "team=b")
	require.Error(t, err)
	assert.Equal(t, "error: --overwrite is false but found the following declared annotation(s): 'team' already has a value (a)\n", errOut)
	assert.Equal(t, "a", dig(c.object(path), "metadata", "annotations", "team"))

	assert.Equal(t, "configmap/settings annotated\n", k.run("annotate", "configmap", "settings", "team=b", "--overwrite"))
	assert.Equal(t, "b", dig(c.object(path), "metadata", "annotations", "team"))

	assert.Equal(t, "configmap/settings annotated\n", k.run("annotate", "configmap", "settings", "team-"))
	assert.Equal(t, map[string]any{"note": "hello world"}, dig(c.object(path), "metadata", "annotations"))
	assert.Equal(t, "hello world", k.run("get", "configmap", "settings", "-o", `jsonpath={.metadata.annotations.note}`))
}

func TestKubectlEditWithScriptedEditor(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	const path = "/api/v1/namespaces/default/configmaps/settings"
	c.mustCreate("/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"settings"},"data":{"color":"blue"}}`)

	editor := k.file("editor.sh", "#!/bin/sh\nsed -i 's/^  color: blue$/  color: green/' \"$1\"\n")
	require.NoError(t, os.Chmod(editor, 0o700))
	out, errOut, err := k.runEnv([]string{"KUBE_EDITOR=" + editor}, "edit", "configmap", "settings")
	require.NoError(t, err, "stderr: %s", errOut)
	assert.Equal(t, "configmap/settings edited\n", out)
	cm := c.object(path)
	assert.Equal(t, "green", dig(cm, "data", "color"))
	fields, _ := json.Marshal(dig(cm, "metadata", "managedFields"))
	assert.Contains(t, string(fields), `"manager":"kubectl-edit"`)

	// An edit the server refuses: kubectl reopens the file with the error
	// on top, and when the second save changes nothing it gives up.
	log := filepath.Join(k.dir, "edits.log")
	bad := k.file("bad.sh", "#!/bin/sh\necho \"$1\" >> "+log+"\n"+
		"grep -q 'bad key' \"$1\" || sed -i 's/^  name: settings$/  name: settings\\n  labels: {\"bad key!\": x}/' \"$1\"\n")
	require.NoError(t, os.Chmod(bad, 0o700))
	out, errOut, err = k.runEnv([]string{"KUBE_EDITOR=" + bad}, "edit", "configmap", "settings")
	require.Error(t, err)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "error: configmaps \"settings\" is invalid\n")
	assert.Contains(t, errOut, "error: Edit cancelled, no valid changes were saved.\n")
	opened, err := os.ReadFile(log)
	require.NoError(t, err)
	files := strings.Fields(string(opened))
	require.Len(t, files, 2, "the editor opens twice")
	reopened, err := os.ReadFile(files[1])
	require.NoError(t, err)
	assert.Contains(t, string(reopened), "# configmaps \"settings\" was not valid:\n# * metadata.labels: Invalid value: \"bad key!\": ")
	assert.Nil(t, dig(c.object(path), "metadata", "labels"), "nothing was saved")
}

func TestKubectlDescribeListsEvents(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	cm := c.mustCreate("/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"settings"},"data":{"color":"blue"}}`)
	pod := c.mustCreate("/api/v1/namespaces/default/pods", `{"metadata":{"name":"settings"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`)
	deploy := c.mustCreate("/apis/apps/v1/namespaces/default/deployments", `{"metadata":{"name":"web"},"spec":{"replicas":1,
		"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`)
	event := func(name, kind, apiVersion, objName, uid, reason, message string) {
		body, err := json.Marshal(map[string]any{
			"metadata":       map[string]any{"name": name},
			"involvedObject": map[string]any{"kind": kind, "apiVersion": apiVersion, "name": objName, "namespace": "default", "uid": uid},
			"reason":         reason, "message": message, "type": "Normal", "count": 3,
			"source":         map[string]any{"component": "tester"},
			"firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:05:00Z",
		})
		require.NoError(t, err)
		c.mustCreate("/api/v1/namespaces/default/events", string(body))
	}
	uid := func(o map[string]any) string { return dig(o, "metadata", "uid").(string) }
	event("cm.1", "ConfigMap", "v1", "settings", uid(cm), "Reloaded", "the configmap was read")
	event("pod.1", "Pod", "v1", "settings", uid(pod), "Scheduled", "the pod went to node-1")
	event("deploy.1", "Deployment", "apps/v1", "web", uid(deploy), "ScalingReplicaSet", "Scaled up replica set web-1 to 1")
	event("stale.1", "ConfigMap", "v1", "settings", "0000-old-uid", "Stale", "an earlier configmap of that name")

	// The field selectors kubectl describe uses, over HTTP.
	r := c.get("/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DPod,involvedObject.name%3Dsettings")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	items := r.object(t)["items"].([]any)
	require.Len(t, items, 1)
	assert.Equal(t, "pod.1", dig(items[0], "metadata", "name"))

	out := k.run("describe", "configmap", "settings")
	assert.Contains(t, out, "Name:         settings\n")
	assert.Contains(t, out, "color:\n----\nblue\n")
	require.Contains(t, out, "Events:\n")
	evs := strings.Split(strings.TrimSpace(out[strings.Index(out, "Events:\n"):]), "\n")
	require.Len(t, evs, 4, "header, rule and one event: %q", evs)
	assert.Equal(t, []string{"Type", "Reason", "Age", "From", "Message"}, strings.Fields(evs[1]))
	row := strings.Fields(evs[3])
	assert.Equal(t, []string{"Normal", "Reloaded"}, row[:2])
	assert.Contains(t, evs[3], "(x3 over ")
	assert.True(t, strings.HasSuffix(evs[3], "tester  the configmap was read"), "%q", evs[3])
	assert.NotContains(t, out, "Scheduled", "the pod of the same name has its own events")
	assert.NotContains(t, out, "Stale", "an event of another uid is not this object's")

	out = k.run("describe", "pod", "settings")
	assert.Regexp(t, `\nStatus: +Pending\n`, out)
	assert.Contains(t, out, "Normal  Scheduled")
	assert.Contains(t, out, "the pod went to node-1")
	assert.NotContains(t, out, "Reloaded")

	out = k.run("describe", "deployment", "web")
	assert.Regexp(t, `\nSelector: +app=web\n`, out)
	assert.Contains(t, out, "Normal  ScalingReplicaSet")
	assert.Contains(t, out, "Scaled up replica set web-1 to 1")
}

func TestKubectlWait(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	ctx := testContext(t)
	const path = "/apis/apps/v1/namespaces/default/deployments/web"
	c.mustCreate("/apis/apps/v1/namespaces/default/deployments", `{"metadata":{"name":"web"},"spec":{"replicas":2,
		"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`)
	c.mustCreate("/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"doomed"}}`)

	// The condition arrives while kubectl waits.
	w := k.start("wait", "--for=condition=Available", "deployment/web", "--timeout=20s")
	require.NoError(t, s.WaitForWatchers(ctx, "deployments.apps", 1))
	r := c.do(http.MethodPatch, path+"/status", `{"status":{"replicas":2,"readyReplicas":2,"availableReplicas":2,"conditions":[
		{"type":"Available","status":"True","reason":"MinimumReplicasAvailable","message":"Deployment has minimum availability."}]}}`,
		"Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, "deployment.apps/web condition met\n", w.wait(t))
	assert.Equal(t, "True", dig(dig(c.object(path), "status", "conditions").([]any)[0], "status"))

	assert.Equal(t, "deployment.apps/web condition met\n", k.run("wait", "--for=jsonpath={.status.availableReplicas}=2", "deployment/web", "--timeout=5s"))
	assert.Equal(t, "deployment.apps/web condition met\n", k.run("wait", "--for=condition=Available=true", "deployment/web", "--timeout=5s"))

	_, errOut, err := k.try("wait", "--for=jsonpath={.spec.replicas}=3", "deployment/web", "--timeout=500ms")
	require.Error(t, err)
	assert.Equal(t, "error: timed out waiting for the condition on deployments/web\n", errOut)

	w = k.start("wait", "--for=delete", "configmap/doomed", "--timeout=20s")
	require.NoError(t, s.WaitForWatchers(ctx, "configmaps", 1))
	r = c.do(http.MethodDelete, "/api/v1/namespaces/default/configmaps/doomed", "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, "configmap/doomed condition met\n", w.wait(t))
	assert.Equal(t, http.StatusNotFound, c.get("/api/v1/namespaces/default/configmaps/doomed").code)

	// --for=create: the object may come before or after kubectl looks.
	w = k.start("wait", "--for=create", "configmap/later", "--timeout=20s")
	c.mustCreate("/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"later"}}`)
	assert.Equal(t, "configmap/later condition met\n", w.wait(t))

	_, errOut, err = k.try("wait", "--for=delete", "configmap/missing", "--timeout=1s")
	require.NoError(t, err, "waiting for the deletion of what is gone succeeds: %s", errOut)
}

func TestKubectlAuthCanI(t *testing.T) {
	// kubectl sends its token only over TLS.
	s := NewForTest(t, Options{
		TLS:    true,
		Tokens: map[string]User{"tok": {Name: "alice", Groups: []string{"devs"}}},
		Forbid: []ForbidRule{{User: "alice", Match: request.Match{Verb: "create", Resource: "pods"}}},
	})
	tr := &http.Transport{TLSClientConfig: s.ClientTLSConfig()}
	t.Cleanup(tr.CloseIdleConnections)
	c := &testClient{t: t, base: s.URL(), http: &http.Client{Transport: tr}}
	k := newKubectl(t, s)

	out, _, err := k.try("auth", "can-i", "create", "pods")
	assert.Error(t, err, "no exits 1")
	assert.Equal(t, "no - forbidden by a fake API server rule\n", out, "an explicit denial prints its reason")
	assert.Equal(t, "yes\n", k.run("auth", "can-i", "list", "pods"))
	assert.Equal(t, "yes\n", k.run("auth", "can-i", "create", "configmaps", "-n", "other"))

	// The answer matches what the server does.
	pod := k.file("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: busybox}]}\n")
	_, errOut, err := k.try("create", "-f", pod)
	require.Error(t, err)
	assert.Contains(t, errOut, `pods is forbidden: User "alice" cannot create resource "pods"`)
	r := c.get("/api/v1/namespaces/default/pods/p", "Authorization", "Bearer tok")
	assert.Equal(t, http.StatusNotFound, r.code, "%s", r.body)

	out, errOut, err = k.try("auth", "can-i", "--list")
	require.NoError(t, err, "stderr: %s", errOut)
	assert.Equal(t, "Warning: the list may be incomplete: forbid rules deny create pods in any namespace; rules cannot list denials\n", errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.GreaterOrEqual(t, len(lines), 2, "%q", out)
	assert.Equal(t, []string{"Resources", "Non-Resource", "URLs", "Resource", "Names", "Verbs"}, strings.Fields(lines[0]))
	assert.Equal(t, []string{"*.*", "[]", "[]", "[*]"}, strings.Fields(lines[1]))

	out = k.run("auth", "whoami")
	assert.Regexp(t, `\nUsername +alice\n`, out)
	assert.Contains(t, out, "[devs system:authenticated]")
}

func TestKubectlGetAll(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	c.mustCreate("/api/v1/namespaces/default/pods", `{"metadata":{"name":"p1"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`)
	c.mustCreate("/apis/apps/v1/namespaces/default/deployments", `{"metadata":{"name":"web"},"spec":{"replicas":1,
		"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`)
	c.mustCreate("/apis/batch/v1/namespaces/default/jobs", `{"metadata":{"name":"once"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`)
	c.mustCreate("/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"not-in-all"}}`)

	out := k.run("get", "all")
	var names []string
	var headers [][]string
	for _, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
		lines := strings.Split(block, "\n")
		headers = append(headers, strings.Fields(lines[0]))
		for _, l := range lines[1:] {
			names = append(names, strings.Fields(l)[0])
		}
	}
	assert.Equal(t, []string{"pod/p1", "service/kubernetes", "deployment.apps/web", "job.batch/once"}, names, "the kinds of the all category, in discovery order")
	require.Len(t, headers, 4)
	assert.Equal(t, []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE"}, headers[0])
	assert.Equal(t, []string{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"}, headers[1])
	assert.Equal(t, []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"}, headers[2])
	assert.NotContains(t, out, "configmap")

	// The category as discovery states it.
	r := c.get("/api/v1")
	require.Equal(t, http.StatusOK, r.code)
	var list struct {
		Resources []struct {
			Name       string   `json:"name"`
			Categories []string `json:"categories"`
		} `json:"resources"`
	}
	require.NoError(t, json.Unmarshal(r.body, &list))
	cats := map[string][]string{}
	for _, res := range list.Resources {
		cats[res.Name] = res.Categories
	}
	assert.Equal(t, []string{"all"}, cats["pods"])
	assert.Empty(t, cats["configmaps"])
}

const toysGadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.toys.example.com}
spec:
  group: toys.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gd], categories: [all, toys]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Color, type: string, jsonPath: .spec.color}
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Ready, type: boolean, jsonPath: .status.ready, priority: 1}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {color: {type: string}, size: {type: integer}}}
          status: {type: object, properties: {ready: {type: boolean}}}
`

func TestKubectlCustomResourcePrinterColumns(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	crd := k.file("crd.yaml", toysGadgetCRD)
	assert.Equal(t, "customresourcedefinition.apiextensions.k8s.io/gadgets.toys.example.com created\n", k.run("apply", "-f", crd))
	assert.Equal(t, "customresourcedefinition.apiextensions.k8s.io/gadgets.toys.example.com condition met\n",
		k.run("wait", "--for=condition=Established", "crd/gadgets.toys.example.com", "--timeout=10s"))

	g := k.file("g.yaml", "apiVersion: toys.example.com/v1\nkind: Gadget\nmetadata: {name: g1}\nspec: {color: red, size: 3}\n---\n"+
		"apiVersion: toys.example.com/v1\nkind: Gadget\nmetadata: {name: g2}\nspec: {color: blue, size: 5}\n")
	assert.Equal(t, "gadget.toys.example.com/g1 created\ngadget.toys.example.com/g2 created\n", k.run("apply", "-f", g))
	r := c.do(http.MethodPatch, "/apis/toys.example.com/v1/namespaces/default/gadgets/g2/status", `{"status":{"ready":true}}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)

	rows := func(out string) [][]string {
		var rs [][]string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			rs = append(rs, strings.Fields(l))
		}
		return rs
	}
	got := rows(k.run("get", "gadgets"))
	require.Len(t, got, 3)
	assert.Equal(t, []string{"NAME", "COLOR", "SIZE", "AGE"}, got[0])
	assert.Equal(t, []string{"g1", "red", "3"}, got[1][:3])
	assert.Equal(t, []string{"g2", "blue", "5"}, got[2][:3])

	got = rows(k.run("get", "gd", "-o", "wide"))
	require.Len(t, got, 3)
	assert.Equal(t, []string{"NAME", "COLOR", "SIZE", "READY", "AGE"}, got[0], "priority-1 columns with -o wide")
	assert.Equal(t, []string{"g2", "blue", "5", "true"}, got[2][:4])

	assert.Equal(t, "gadget.toys.example.com/g1\ngadget.toys.example.com/g2\n", k.run("get", "toys", "-o", "name"), "a category of the CRD")
	assert.Contains(t, k.run("get", "all", "-o", "name"), "gadget.toys.example.com/g1\n")
	got = rows(k.run("api-resources", "--categories=toys"))
	assert.Equal(t, [][]string{{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"}, {"gadgets", "gd", "toys.example.com/v1", "true", "Gadget"}}, got)

	var list struct {
		Resources []struct {
			Name       string   `json:"name"`
			ShortNames []string `json:"shortNames"`
			Categories []string `json:"categories"`
		} `json:"resources"`
	}
	r = c.get("/apis/toys.example.com/v1")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.NoError(t, json.Unmarshal(r.body, &list))
	require.NotEmpty(t, list.Resources)
	assert.Equal(t, "gadgets", list.Resources[0].Name)
	assert.Equal(t, []string{"gd"}, list.Resources[0].ShortNames)
	assert.Equal(t, []string{"all", "toys"}, list.Resources[0].Categories)
	assert.Equal(t, true, dig(c.object("/apis/toys.example.com/v1/namespaces/default/gadgets/g2"), "status", "ready"))
}

func TestKubectlGetRawDiscovery(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	decode := func(out string) map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &m), "%s", out)
		return m
	}

	out := k.run("get", "--raw", "/version")
	assert.True(t, strings.HasPrefix(out, "{\n  \"major\": \"1\",\n  \"minor\": \"37\",\n"), "indented as the real server does: %s", out)
	assert.Equal(t, "v1.37.2", decode(out)["gitVersion"])

	out = k.run("get", "--raw", "/api")
	assert.True(t, strings.HasPrefix(out, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[`), "%s", out)

	out = k.run("get", "--raw", "/apis")
	assert.True(t, strings.HasPrefix(out, `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apiregistration.k8s.io","versions":[`), "%s", out)
	if want, err := os.ReadFile("../e2e/testdata/real/discovery/apis.json"); err == nil {
		assert.Equal(t, compact(want)+"\n", out, "byte for byte the real server's /apis")
	}
	var groups []string
	for _, g := range decode(out)["groups"].([]any) {
		groups = append(groups, dig(g, "name").(string))
	}
	assert.Contains(t, groups, "apps")
	assert.NotContains(t, groups, "", "the core group is under /api")

	out = k.run("get", "--raw", "/apis/apps")
	assert.True(t, strings.HasPrefix(out, `{"kind":"APIGroup","apiVersion":"v1","name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}]`), "%s", out)

	out = k.run("get", "--raw", "/openapi/v2")
	v2 := decode(out)
	assert.Equal(t, "2.0", v2["swagger"])
	deploy, _ := dig(v2, "definitions", "io.k8s.api.apps.v1.Deployment").(map[string]any)
	require.NotNil(t, deploy)
	assert.Equal(t, []any{map[string]any{"group": "apps", "kind": "Deployment", "version": "v1"}}, deploy["x-kubernetes-group-version-kind"])
	patch := dig(v2, "paths", "/api/v1/namespaces/{namespace}/configmaps/{name}", "patch")
	assert.Equal(t, map[string]any{"group": "", "kind": "ConfigMap", "version": "v1"}, dig(patch, "x-kubernetes-group-version-kind"))

	// Only protobuf accepted: the protobuf form, as the real server answers.
	r := c.get("/openapi/v2", "Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	assert.Equal(t, http.StatusOK, r.code)
	assert.Equal(t, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", r.header.Get("Content-Type"))

	// A custom resource's schema appears once its CRD is served.
	c.mustCreate("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widgetCRD)
	v2 = decode(k.run("get", "--raw", "/openapi/v2"))
	assert.NotNil(t, dig(v2, "definitions", "com.example.v1.Widget"))
}

func TestKubectlGetOutputs(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	k := newKubectl(t, s)
	f := k.file("objs.yaml", `apiVersion: v1
kind: Namespace
metadata: {name: other}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: default, labels: {app: a}}
spec:
  nodeName: node-1
  containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: p2, namespace: other}
spec:
  containers: [{name: c, image: busybox}, {name: d, image: nginx}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm1, namespace: other}
`)
	k.run("apply", "-f", f)

	lines := strings.Split(strings.TrimSpace(k.run("get", "pods", "-o", "wide", "-A")), "\n")
	require.Len(t, lines, 3, "%q", lines)
	assert.Equal(t, []string{"NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED", "NODE", "READINESS", "GATES"}, strings.Fields(lines[0]))
	row := strings.Fields(lines[1])
	require.Len(t, row, 10)
	assert.Equal(t, []string{"default", "p1", "0/1", "Pending", "0"}, row[:5])
	assert.Equal(t, []string{"<none>", "node-1", "<none>", "<none>"}, row[6:])
	row = strings.Fields(lines[2])
	require.Len(t, row, 10)
	assert.Equal(t, []string{"other", "p2", "0/2", "Pending", "0"}, row[:5])
	assert.Equal(t, "<none>", row[7])

	assert.Equal(t, "pod/p1\n", k.run("get", "pods", "-A", "--field-selector", "spec.nodeName=node-1", "-o", "name"))
	assert.Equal(t, "pod/p2\n", k.run("get", "pods", "-A", "--field-selector", "spec.nodeName!=node-1,status.phase=Pending", "-o", "name"))
	assert.Equal(t, "configmap/cm1\n", k.run("get", "configmaps", "-n", "other", "--field-selector", "metadata.name=cm1", "-o", "name"))
	_, errOut, err := k.try("get", "pods", "--field-selector", "bogus=1")
	require.Error(t, err)
	assert.Contains(t, errOut, `field label not supported: bogus`)

	assert.Equal(t, "pod/p2\nconfigmap/cm1\n", k.run("get", "pods,configmaps", "-n", "other", "-o", "name"), "several kinds with -o name")
	assert.Equal(t, "namespace/other\npod/p1\n", k.run("get", "namespace/other", "pod/p1", "-o", "name"))

	out := k.run("get", "pod", "p1", "-o", "yaml")
	assert.True(t, strings.HasPrefix(out, "apiVersion: v1\nkind: Pod\nmetadata:\n"), "%s", out)
	assert.Contains(t, out, "\n  name: p1\n")
	assert.Contains(t, out, "\n  nodeName: node-1\n")
	out = k.run("get", "pods,configmaps", "-n", "other", "-o", "yaml")
	assert.True(t, strings.HasPrefix(out, "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n"), "%s", out)
	assert.Contains(t, out, "\n  kind: ConfigMap\n")
	assert.True(t, strings.HasSuffix(out, "kind: List\nmetadata:\n  resourceVersion: \"\"\n"), "%s", out)
}
