package builtin

import (
	"path"
	"slices"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// The own rules of the common volume sources (emptyDir, hostPath,
// secret, configMap, persistentVolumeClaim, nfs, csi) as the real
// validator checks a pod volume's one source.

// volumeSource checks the source kind of volume vol at p.
func (v *validator) volumeSource(p, kind string, vol *jsonv.Value) {
	s := present(vol, kind)
	if s == nil {
		return
	}
	p += "." + kind
	switch kind {
	case "emptyDir":
		if q, ok := quantityValue(s.Get("sizeLimit")); ok && q.Sign() < 0 {
			v.forbidden(p+".sizeLimit", "SizeLimit field must be a valid resource quantity")
		}
	case "hostPath":
		hp := str(s, "path")
		if hp == "" {
			v.required(p+".path", "")
			return
		}
		v.noBacksteps(p+".path", hp)
		if t := s.Get("type"); t != nil && t.Kind == jsonv.String {
			switch t.Str {
			case "", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice":
			default:
				v.notSupported(p+".type", t.Str, "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket")
			}
		}
	case "secret", "configMap":
		nameKey := "secretName"
		if kind == "configMap" {
			nameKey = "name"
		}
		if str(s, nameKey) == "" {
			v.required(p+"."+nameKey, "")
		}
		v.fileMode(p+".defaultMode", s, "defaultMode")
		for i, it := range items(s, "items") {
			v.keyToPath(index(p+".items", i), it)
		}
	case "persistentVolumeClaim":
		if str(s, "claimName") == "" {
			v.required(p+".claimName", "")
		}
	case "nfs":
		np := str(s, "path")
		if str(s, "server") == "" {
			v.required(p+".server", "")
		}
		if np == "" {
			v.required(p+".path", "")
		}
		if !path.IsAbs(np) {
			v.invalid(p+".path", np, "must be an absolute path")
		}
	case "csi":
		v.csiDriverName(p+".driver", str(s, "driver"))
		if ref := present(s, "nodePublishSecretRef"); ref != nil {
			if n := str(ref, "name"); n == "" {
				v.required(p+".nodePublishSecretRef.name", "")
			} else {
				// The real validator names the field p.name.
				v.problems(p+".name", n, validation.SubdomainProblems(n))
			}
		}
	}
}

// keyToPath checks one item of a secret or configMap volume: a key, and
// a relative path without backsteps that does not start with "..".
func (v *validator) keyToPath(p string, it *jsonv.Value) {
	if str(it, "key") == "" {
		v.required(p+".key", "")
	}
	kp := str(it, "path")
	if kp == "" {
		v.required(p+".path", "")
	}
	v.localNonReservedPath(p+".path", kp)
	v.fileMode(p+".mode", it, "mode")
}

// localNonReservedPath checks a path inside a volume: relative, without
// a ".." element, and not starting with "..".
func (v *validator) localNonReservedPath(field, p string) {
	if path.IsAbs(p) {
		v.invalid(field, p, "must be a relative path")
	}
	v.noBacksteps(field, p)
	if strings.HasPrefix(p, "..") && !strings.HasPrefix(p, "../") {
		v.invalid(field, p, "must not start with '..'")
	}
}

// noBacksteps reports a path with a ".." element, once.
func (v *validator) noBacksteps(field, p string) {
	if slices.Contains(strings.Split(p, "/"), "..") {
		v.invalid(field, p, "must not contain '..'")
	}
}

// fileMode checks a file mode member: between 0 and 0777.
func (v *validator) fileMode(field string, obj *jsonv.Value, key string) {
	if n, ok := integer(obj, key); ok && (n < 0 || n > 0o777) {
		v.add(invalidNumber(field, n, "must be a number between 0 and 0777 (octal), both inclusive"))
	}
}

// csiDriverName checks a CSI driver name: set, at most 63 characters,
// a subdomain once lowercased.
func (v *validator) csiDriverName(field, name string) {
	if name == "" {
		v.required(field, "")
		return
	}
	if len(name) > 63 {
		v.tooLong(field, 63)
	}
	v.problems(field, name, validation.SubdomainProblems(strings.ToLower(name)))
}
