package builtin

import (
	"regexp"
	"strings"
)

// An image reference as the container runtime reads it:
// [domain[:port]/]path[:tag][@digest], the path lowercase. The grammar is
// the one of the distribution reference format.
var (
	domainRE = regexp.MustCompile(`^(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?$|^\[[a-fA-F0-9:]+\](?::[0-9]+)?$`)
	pathRE   = regexp.MustCompile(`^[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*)*$`)
	tagRE    = regexp.MustCompile(`^[\w][\w.-]{0,127}$`)
	digestRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$`)
	hex64RE  = regexp.MustCompile(`^[a-f0-9]{64}$`)
)

// imageTag returns the tag the runtime pulls for image: its tag, "latest"
// when it has neither tag nor digest, "" when it has only a digest or does
// not parse.
func imageTag(image string) string {
	name, digest, hasDigest := strings.Cut(image, "@")
	if hasDigest && !digestRE.MatchString(digest) {
		return ""
	}
	tag := ""
	if i := strings.LastIndexByte(name, ':'); i >= 0 && !strings.Contains(name[i+1:], "/") {
		name, tag = name[:i], name[i+1:]
		if !tagRE.MatchString(tag) {
			return ""
		}
	}
	if name == "" || len(name) > 255 || hex64RE.MatchString(name) {
		return ""
	}
	path := name
	if first, rest, ok := strings.Cut(name, "/"); ok && (strings.ContainsAny(first, ".:") || first == "localhost" || strings.ToLower(first) != first) {
		if !domainRE.MatchString(first) {
			return ""
		}
		path = rest
	}
	if !pathRE.MatchString(path) {
		return ""
	}
	if tag == "" && !hasDigest {
		return "latest"
	}
	return tag
}

// pullPolicy is a container's default imagePullPolicy: Always for the
// latest tag (named or implied), IfNotPresent otherwise.
func pullPolicy(image string) string {
	if imageTag(image) == "latest" {
		return "Always"
	}
	return "IfNotPresent"
}
