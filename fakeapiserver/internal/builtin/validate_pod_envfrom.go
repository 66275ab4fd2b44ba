package builtin

import (
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// envFrom checks a container's envFrom sources: a prefix that is a valid
// variable name, and exactly one of configMapRef and secretRef, naming
// an object (a prefix name: a trailing dash allowed). The real validator
// reports a wrong number of sources on the list, not on the entry.
func (v *validator) envFrom(path string, c *jsonv.Value) {
	for i, e := range items(c, "envFrom") {
		p := index(path, i)
		if prefix := str(e, "prefix"); prefix != "" {
			v.problems(p+".prefix", prefix, envVarNameProblems(prefix))
		}
		sources := 0
		for _, ref := range []string{"configMapRef", "secretRef"} {
			r := present(e, ref)
			if r == nil {
				continue
			}
			sources++
			name := str(r, "name")
			if name == "" {
				v.required(p+"."+ref+".name", "")
				continue
			}
			masked := name
			if len(masked) > 1 && strings.HasSuffix(masked, "-") {
				masked = masked[:len(masked)-1] + "a"
			}
			v.problems(p+"."+ref+".name", name, validation.SubdomainProblems(masked))
		}
		switch {
		case sources == 0:
			v.invalid(path, "", "must specify one of: `configMapRef` or `secretRef`")
		case sources > 1:
			v.invalid(path, "", "may not have more than one field specified at a time")
		}
	}
}

// fileKeyRefVolumes checks that each environment variable read from a
// file names a volume of the pod, and an emptyDir one.
func (v *validator) fileKeyRefVolumes(path string, spec *jsonv.Value) {
	vols := map[string]*jsonv.Value{}
	for _, vol := range items(spec, "volumes") {
		vols[str(vol, "name")] = vol
	}
	eachPodContainer(path, spec, func(p string, c *jsonv.Value) {
		for j, e := range items(c, "env") {
			ref := present(present(e, "valueFrom"), "fileKeyRef")
			if ref == nil {
				continue
			}
			field := index(p+".env", j) + ".valueFrom.fileKeyRef.volumeName"
			name := str(ref, "volumeName")
			vol, ok := vols[name]
			switch {
			case !ok:
				v.notFound(field, name)
			case present(vol, "emptyDir") == nil:
				v.invalid(field, name, "referenced volume must be of type emptyDir")
			}
		}
	})
}
