package builtin

import (
	"encoding/base64"
	"encoding/pem"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"crypto/x509"

	"github.com/kubecache/kubecache/fakeapiserver/internal/admission"
	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// Validation of admission webhook configurations and certificate signing
// requests.

// stringsOf returns the strings of the array under key (other items as
// "").
func stringsOf(obj *jsonv.Value, key string) []string {
	arr := obj.Get(key)
	if arr == nil || arr.Kind != jsonv.Array {
		return nil
	}
	out := make([]string, len(arr.Arr))
	for i, v := range arr.Arr {
		out[i] = v.Str
	}
	return out
}

func validateValidatingWebhooks(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	v.webhooks(obj, false)
}

func validateMutatingWebhooks(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	v.webhooks(obj, true)
}

// webhooks checks the webhooks of a configuration; mutating ones have a
// reinvocation policy.
func (v *validator) webhooks(obj *jsonv.Value, mutating bool) {
	seen := map[string]bool{}
	for i, wh := range items(obj, "webhooks") {
		p := index("webhooks", i)
		name := str(wh, "name")
		v.fullyQualifiedName(p+".name", name)
		for j, r := range items(wh, "rules") {
			v.webhookRule(index(p+".rules", j), r)
		}
		v.enum(wh, "failurePolicy", p+".failurePolicy", "Fail", "Ignore")
		v.enum(wh, "matchPolicy", p+".matchPolicy", "Equivalent", "Exact")
		if unset(wh, "sideEffects") {
			v.required(p+".sideEffects", "must specify one of None, NoneOnDryRun")
		} else {
			v.enum(wh, "sideEffects", p+".sideEffects", "None", "NoneOnDryRun")
		}
		if n, ok := integer(wh, "timeoutSeconds"); ok && (n > 30 || n < 1) {
			v.invalidRaw(p+".timeoutSeconds", strconv.FormatInt(n, 10), "the timeout value must be between 1 and 30 seconds")
		}
		if mutating {
			v.enum(wh, "reinvocationPolicy", p+".reinvocationPolicy", "IfNeeded", "Never")
		}
		v.selector(p+".namespaceSelector", readSelector(wh, "namespaceSelector"))
		v.selector(p+".objectSelector", readSelector(wh, "objectSelector"))
		v.clientConfig(p+".clientConfig", sub(wh, "clientConfig"))
		v.admissionReviewVersions(p+".admissionReviewVersions", stringsOf(wh, "admissionReviewVersions"))
		v.matchConditions(p+".matchConditions", items(wh, "matchConditions"))
		if name != "" {
			if seen[name] {
				v.duplicate(p+".name", name)
			}
			seen[name] = true
		}
	}
}

// matchConditions checks a webhook's match conditions: at most 64, each
// with a unique qualified name and an expression that compiles to a bool
// in the real server's environment (admission.CheckWebhookCondition).
func (v *validator) matchConditions(p string, conds []*jsonv.Value) {
	if len(conds) > 64 {
		v.add(FieldError{Type: apistatus.CauseFieldValueTooMany, Field: p, Value: strconv.Itoa(len(conds)), Detail: "must have at most 64 items"})
	}
	seen := map[string]bool{}
	for i, c := range conds {
		cp := index(p, i)
		expr := strings.TrimSpace(str(c, "expression"))
		if expr == "" {
			v.required(cp+".expression", "")
		} else if msg := admission.CheckWebhookCondition(expr); msg != "" {
			v.invalid(cp+".expression", expr, msg)
		}
		name := str(c, "name")
		if name == "" {
			v.required(cp+".name", "")
			continue
		}
		v.problems(cp+".name", name, qualifiedNameProblems(name))
		if seen[name] {
			v.duplicate(cp+".name", name)
		}
		seen[name] = true
	}
}

// fullyQualifiedName checks a webhook's name: a DNS subdomain of at
// least three segments.
func (v *validator) fullyQualifiedName(field, name string) {
	if name == "" {
		v.required(field, "")
		return
	}
	if problems := validation.SubdomainProblems(name); len(problems) > 0 {
		v.problems(field, name, problems)
		return
	}
	if len(strings.Split(name, ".")) < 3 {
		v.invalid(field, name, "should be a domain with at least three segments separated by dots")
	}
}

// webhookRule checks one rule of a webhook.
func (v *validator) webhookRule(p string, r *jsonv.Value) {
	ops := stringsOf(r, "operations")
	if len(ops) == 0 {
		v.required(p+".operations", "")
	}
	if len(ops) > 1 && slices.Contains(ops, "*") {
		v.add(invalidList(p+".operations", ops, "if '*' is present, must not specify other operations"))
	}
	for i, op := range ops {
		switch op {
		case "*", "CONNECT", "CREATE", "DELETE", "UPDATE":
		default:
			v.notSupported(index(p+".operations", i), op, "*", "CONNECT", "CREATE", "DELETE", "UPDATE")
		}
	}
	groups, versions := stringsOf(r, "apiGroups"), stringsOf(r, "apiVersions")
	if len(groups) == 0 {
		v.required(p+".apiGroups", "")
	}
	if len(groups) > 1 && slices.Contains(groups, "*") {
		v.add(invalidList(p+".apiGroups", groups, "if '*' is present, must not specify other API groups"))
	}
	if len(versions) == 0 {
		v.required(p+".apiVersions", "")
	}
	if len(versions) > 1 && slices.Contains(versions, "*") {
		v.add(invalidList(p+".apiVersions", versions, "if '*' is present, must not specify other API versions"))
	}
	for i, ver := range versions {
		if ver == "" {
			v.required(index(p+".apiVersions", i), "")
		}
	}
	resources := stringsOf(r, "resources")
	if len(resources) == 0 {
		v.required(p+".resources", "")
	}
	for i, res := range resources {
		if res == "" {
			v.required(index(p+".resources", i), "")
		}
	}
	if len(resources) > 1 && slices.Contains(resources, "*/*") {
		v.add(invalidList(p+".resources", resources, "if '*/*' is present, must not specify other resources"))
	}
	v.enum(r, "scope", p+".scope", "*", "Cluster", "Namespaced")
}

// clientConfig checks where a webhook is reached: a URL or a Service.
func (v *validator) clientConfig(p string, cc *jsonv.Value) {
	hasURL, hasService := !unset(cc, "url"), !unset(cc, "service")
	switch {
	case hasURL == hasService:
		v.required(p, "exactly one of url or service is required")
	case hasURL:
		v.webhookURL(p+".url", str(cc, "url"))
	default:
		svc := sub(cc, "service")
		sp := p + ".service"
		if str(svc, "name") == "" {
			v.required(sp+".name", "")
		}
		if str(svc, "namespace") == "" {
			v.required(sp+".namespace", "")
		}
		if n, ok := integer(svc, "port"); ok && (n < 1 || n > 65535) {
			v.invalidRaw(sp+".port", strconv.FormatInt(n, 10), "port is not valid: must be between 1 and 65535, inclusive")
		}
		if !unset(svc, "path") {
			v.servicePath(sp+".path", str(svc, "path"))
		}
	}
}

// webhookURL checks a webhook's https URL.
func (v *validator) webhookURL(p, raw string) {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		v.required(p, "url must be a valid URL: "+err.Error()+form)
		return
	}
	if u.Scheme != "https" {
		v.invalid(p, u.Scheme, "'https' is the only allowed URL scheme"+form)
	}
	if u.Host == "" {
		v.invalid(p, u.Host, "host must be specified"+form)
	}
	if u.User != nil {
		v.invalid(p, u.User.String(), "user information is not permitted in the URL")
	}
	if u.Fragment != "" {
		v.invalid(p, u.Fragment, "fragments are not permitted in the URL")
	}
	if u.RawQuery != "" {
		v.invalid(p, u.RawQuery, "query parameters are not permitted in the URL")
	}
}

// servicePath checks the path of a webhook Service: "/", or segments
// that are DNS subdomains after a leading slash.
func (v *validator) servicePath(p, path string) {
	if path == "/" || path == "" {
		return
	}
	if path == "//" {
		v.invalid(p, path, "segment[0] may not be empty")
		return
	}
	if !strings.HasPrefix(path, "/") {
		v.invalid(p, path, "must start with a '/'")
	}
	rest := strings.TrimSuffix(path[1:], "/")
	for i, step := range strings.Split(rest, "/") {
		if step == "" {
			v.invalid(p, path, "segment["+strconv.Itoa(i)+"] may not be empty")
			continue
		}
		for _, problem := range validation.SubdomainProblems(step) {
			v.invalid(p, path, "segment["+strconv.Itoa(i)+"]: "+problem)
		}
	}
}

// admissionReviewVersions checks the AdmissionReview versions a webhook
// accepts: at least one the server speaks (v1, v1beta1).
func (v *validator) admissionReviewVersions(p string, versions []string) {
	if len(versions) == 0 {
		v.required(p, "must specify one of v1, v1beta1")
		return
	}
	seen := map[string]bool{}
	accepted := false
	for i, ver := range versions {
		if seen[ver] {
			v.invalid(index(p, i), ver, "duplicate version")
			continue
		}
		seen[ver] = true
		v.problems(index(p, i), ver, validation.DNS1035LabelProblems(ver))
		if ver == "v1" || ver == "v1beta1" {
			accepted = true
		}
	}
	if !accepted {
		v.add(invalidList(p, versions, "must include at least one of v1, v1beta1"))
	}
}

// keyUsages are the usages a CertificateSigningRequest may ask for, in
// the order the real server lists them.
var keyUsages = []string{"any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment",
	"decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user",
	"key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"}

func validateCSR(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	request := spec.Get("request")
	if problem := csrProblem(request); problem != "" {
		shown := "null"
		if request != nil && request.Kind == jsonv.String {
			shown = strconv.Quote(request.Str)
		}
		v.invalidRaw("spec.request", shown, problem)
	}
	usages := stringsOf(spec, "usages")
	if len(usages) == 0 {
		v.required("spec.usages", "")
	}
	for i, u := range usages {
		if !slices.Contains(keyUsages, u) {
			v.notSupported(index("spec.usages", i), u, keyUsages...)
		}
	}
	seen := map[string]bool{}
	for i, u := range usages {
		if seen[u] {
			v.duplicate(index("spec.usages", i), u)
		}
		seen[u] = true
	}
	if signer := str(spec, "signerName"); signer == "kubernetes.io/legacy-unknown" {
		v.invalid("spec.signerName", signer, "the legacy signerName is not allowed via this API version")
	} else {
		v.signerName("spec.signerName", signer)
	}
	if n, ok := integer(spec, "expirationSeconds"); ok && n < 600 {
		v.invalidRaw("spec.expirationSeconds", strconv.FormatInt(n, 10), "may not specify a duration less than 600 seconds (10 minutes)")
	}
}

// csrProblem returns why a request (base64 in JSON) is not a PEM
// certificate request with a valid signature, or "".
func csrProblem(request *jsonv.Value) string {
	const notPEM = "PEM block type must be CERTIFICATE REQUEST"
	if request == nil || request.Kind != jsonv.String {
		return notPEM
	}
	data, err := base64.StdEncoding.DecodeString(request.Str)
	if err != nil {
		return notPEM
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return notPEM
	}
	csr, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return err.Error()
	}
	if err := csr.CheckSignature(); err != nil {
		return err.Error()
	}
	return ""
}

// signerName checks a signer name: a domain of at least two labels, a
// slash, and a path of DNS subdomains.
func (v *validator) signerName(p, name string) {
	if name == "" {
		v.required(p, "")
		return
	}
	segments := strings.Split(name, "/")
	if len(segments) != 2 {
		v.invalid(p, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")
		return
	}
	if len(segments[0]) > 253 {
		v.add(FieldError{Type: apistatus.CauseFieldValueTooLong, Field: p, Detail: "may not be more than 253 bytes"})
	}
	labels := strings.Split(segments[0], ".")
	for _, l := range labels {
		if problems := validation.LabelProblems(l); len(problems) > 0 {
			for _, pr := range problems {
				v.invalid(p, segments[0], "validating label "+strconv.Quote(l)+": "+pr)
			}
			break
		}
	}
	if len(labels) < 2 {
		v.invalid(p, segments[0], "should be a domain with at least two segments separated by dots")
	}
	for _, l := range strings.Split(segments[1], ".") {
		if problems := validation.SubdomainProblems(l); len(problems) > 0 {
			for _, pr := range problems {
				v.invalid(p, segments[1], "validating label "+strconv.Quote(l)+": "+pr)
			}
			break
		}
	}
	if len(name) > 253+253+63+1+1 {
		v.add(FieldError{Type: apistatus.CauseFieldValueTooLong, Field: p, Detail: "may not be more than 571 bytes"})
	}
}
