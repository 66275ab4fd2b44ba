package builtin

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPullPolicy(t *testing.T) {
	for image, want := range map[string]string{
		"nginx":                        "Always",
		"nginx:latest":                 "Always",
		"nginx:1.27":                   "IfNotPresent",
		"docker.io/library/nginx":      "Always",
		"localhost:5000/app":           "Always",
		"localhost:5000/app:v2":        "IfNotPresent",
		"registry.example.com/a/b:dev": "IfNotPresent",
		"quay.io/x/y@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef":        "IfNotPresent",
		"quay.io/x/y:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": "Always",
		// References the runtime would not parse get IfNotPresent.
		"Nginx":           "IfNotPresent",
		"":                "IfNotPresent",
		"nginx:":          "IfNotPresent",
		"nginx@bad":       "IfNotPresent",
		"a b":             "IfNotPresent",
		"Example.com/app": "Always",
	} {
		assert.Equal(t, want, pullPolicy(image), "pullPolicy(%q)", image)
	}
}
