package builtin

import (
	"testing"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// BenchmarkWriteCreatePod measures what a Pod create costs in this
// package: defaulting, preparation, validation and Complete.
func BenchmarkWriteCreatePod(b *testing.B) {
	res, err := jsonv.Parse([]byte(`{"spec":{"nodeName":"node-1","serviceAccountName":"default","restartPolicy":"Always","containers":[{"name":"web","image":"registry.example.com/team/web:1.2.3","ports":[{"containerPort":8080,"protocol":"TCP"}],"env":[{"name":"MODE","value":"production"},{"name":"LOG_LEVEL","value":"info"}],"resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"500m","memory":"256Mi"}},"volumeMounts":[{"name":"config","mountPath":"/etc/web"}]}],"volumes":[{"name":"config","configMap":{"name":"web-config"}}]},"status":{"phase":"Running"}}`))
	if err != nil {
		b.Fatal(err)
	}
	w := Write{Env: Env{Now: time.Unix(0, 0)}}
	k := Kind{Version: "v1", Kind: "Pod"}
	b.ReportAllocs()
	for b.Loop() {
		obj := res.Value.Clone()
		m := &meta.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{"app": "web"}}
		if err := w.Create(k, m, &obj); err != nil {
			b.Fatal(err)
		}
	}
}
