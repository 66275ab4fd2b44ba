package builtin

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// Validation of ClusterTrustBundles and PodCertificateRequests.

// The real server's limits on what these kinds carry.
const (
	// maxTrustBundleBytes bounds a ClusterTrustBundle's PEM text.
	maxTrustBundleBytes = 1 << 20
	// maxStubRequestBytes bounds a PodCertificateRequest's PKCS#10 stub.
	maxStubRequestBytes = 10 * 1024
	// maxPKIXKeyBytes and maxProofBytes bound the deprecated key and
	// proof-of-possession pair.
	maxPKIXKeyBytes = 10 * 1024
	maxProofBytes   = 10 * 1024
	// maxUIDBytes bounds the pod, service account and node uids a
	// request names.
	maxUIDBytes = 128
	// The range of a request's maxExpirationSeconds: at least an hour,
	// at most a day for a kubernetes.io signer and 91 days for others.
	minMaxExpiration           = 3600
	kubernetesMaxMaxExpiration = 86400
	maxMaxExpiration           = 91 * 86400
	// omitted is how the real server shows a value it leaves out.
	omitted = "<value omitted>"
)

// validateClusterTrustBundle checks a ClusterTrustBundle: its name
// (prefixed with its signer name, ':' for '/', when it has one), its
// signer name, and its PEM text.
func validateClusterTrustBundle(v *validator, m *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	signer := str(spec, "signerName")
	if m.GenerateName != "" {
		v.problems("metadata.generateName", m.GenerateName, trustBundleNameProblems(signer, generatePrefix(m.GenerateName)))
	}
	if m.Name != "" {
		v.problems("metadata.name", m.Name, trustBundleNameProblems(signer, m.Name))
	}
	if signer != "" {
		v.signerName("spec.signerName", signer)
	}
	v.trustBundle("spec.trustBundle", str(spec, "trustBundle"))
}

// generatePrefix is a generateName as the real server checks it: a
// trailing dash stands for the suffix to come.
func generatePrefix(prefix string) string {
	if len(prefix) > 1 && strings.HasSuffix(prefix, "-") {
		return prefix[:len(prefix)-1] + "a"
	}
	return prefix
}

// trustBundleNameProblems returns what is wrong with a ClusterTrustBundle
// name for signer.
func trustBundleNameProblems(signer, name string) []string {
	if signer == "" {
		if strings.Contains(name, ":") {
			return []string{`ClusterTrustBundle without signer name must not have ":" in its name`}
		}
		return validation.SubdomainProblems(name)
	}
	prefix := strings.ReplaceAll(signer, "/", ":") + ":"
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return []string{"ClusterTrustBundle for signerName " + signer + " must be named with prefix " + prefix}
	}
	return validation.SubdomainProblems(rest)
}

// trustBundle checks a PEM list of CA certificates: every block one
// without headers, each a CA, at least one, none twice. A bad block is
// reported alone.
func (v *validator) trustBundle(p, in string) {
	if len(in) > maxTrustBundleBytes {
		v.tooLong(p, maxTrustBundleBytes)
		return
	}
	bad := len(v.errs)
	seen := map[string][]int{}
	var order []string
	rest := []byte(in)
	for i := 0; ; i++ {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		var problem string
		switch {
		case b.Type != "CERTIFICATE":
			problem = fmt.Sprintf("entry %d has bad block type: %v", i, b.Type)
		case len(b.Headers) != 0:
			problem = fmt.Sprintf("entry %d has PEM block headers", i)
		}
		if problem == "" {
			problem = caProblem(i, b.Bytes)
		}
		if problem != "" {
			v.invalid(p, omitted, problem)
			continue
		}
		k := string(b.Bytes)
		if seen[k] == nil {
			order = append(order, k)
		}
		seen[k] = append(seen[k], i)
	}
	if len(v.errs) > bad {
		return
	}
	if len(seen) == 0 {
		v.invalid(p, omitted, "at least one trust anchor must be provided")
	}
	for _, k := range order {
		if idx := seen[k]; len(idx) > 1 {
			v.invalid(p, omitted, fmt.Sprintf("duplicate trust anchor (indices %v)", idx))
		}
	}
}

// caProblem returns why the i-th block's DER is not a CA certificate, or
// "".
func caProblem(i int, der []byte) string {
	cert, err := x509.ParseCertificate(der)
	switch {
	case err != nil:
		return fmt.Sprintf("entry %d does not parse as X.509", i)
	case !cert.IsCA:
		return fmt.Sprintf("entry %d does not have the CA bit set", i)
	case !cert.BasicConstraintsValid:
		return fmt.Sprintf("entry %d has invalid basic constraints", i)
	}
	return ""
}

// validatePodCertificateRequest checks a PodCertificateRequest's spec:
// signer, the pod, service account and node it names with their uids,
// its expiry within its signer's range and its key (a PKCS#10 stub, or
// the deprecated public key with its proof of possession).
func validatePodCertificateRequest(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	signer := str(spec, "signerName")
	v.signerName("spec.signerName", signer)
	if ua := present(spec, "unverifiedUserAnnotations"); ua != nil {
		v.userAnnotations("spec.unverifiedUserAnnotations", ua)
	}
	for _, ref := range []struct{ name, uid string }{{"podName", "podUID"}, {"serviceAccountName", "serviceAccountUID"}, {"nodeName", "nodeUID"}} {
		name := str(spec, ref.name)
		v.problems("spec."+ref.name, name, validation.SubdomainProblems(name))
		uid := str(spec, ref.uid)
		if uid == "" {
			v.invalid("spec."+ref.uid, uid, "must not be empty")
		}
		if len(uid) > maxUIDBytes {
			v.tooLong("spec."+ref.uid, maxUIDBytes)
		}
	}
	exp, ok := integer(spec, "maxExpirationSeconds")
	if !ok {
		v.required("spec.maxExpirationSeconds", "must be set")
		return
	}
	limit := int64(maxMaxExpiration)
	if isKubernetesSigner(signer) {
		limit = kubernetesMaxMaxExpiration
	}
	if exp < minMaxExpiration || exp > limit {
		v.invalidRaw("spec.maxExpirationSeconds", strconv.FormatInt(exp, 10), fmt.Sprintf("must be in the range [%d, %d]", minMaxExpiration, limit))
	}
	stub, pkix, proof := str(spec, "stubPKCS10Request"), str(spec, "pkixPublicKey"), str(spec, "proofOfPossession")
	switch {
	case stub != "" && pkix == "" && proof == "":
		v.stubRequest(stub)
	case stub == "" && pkix != "" && proof != "":
		v.pkixKey(pkix, proof, str(spec, "podUID"))
	default:
		v.add(FieldError{Type: meta.CauseFieldValueInvalid, Field: "spec", Detail: "exactly one of (stubPKCS10Request) or (pkixPublicKey, proofOfPossession) must be set"})
	}
}

// isKubernetesSigner reports a signer of the kubernetes.io domain.
func isKubernetesSigner(signer string) bool {
	host, _, _ := strings.Cut(signer, "/")
	return host == "kubernetes.io" || strings.HasSuffix(host, ".kubernetes.io")
}

// userAnnotations checks the keys of annotations a request carries for
// its signer: each a domain-prefixed key (compared in lower case).
func (v *validator) userAnnotations(p string, ua *jsonv.Value) {
	size := 0
	keys := make([]string, 0, len(ua.Obj))
	for _, m := range ua.Obj {
		keys = append(keys, m.Key)
		size += len(m.Key) + len(m.Value.Str)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v.domainPrefixedKey(p, strings.ToLower(k))
	}
	if size > 256*1024 {
		v.tooLong(p, 256*1024)
	}
}

// domainPrefixedKey checks a key that must be "<domain>/<name>".
func (v *validator) domainPrefixedKey(p, k string) {
	domain, name, ok := strings.Cut(k, "/")
	if !ok {
		v.invalid(p, k, "must be a domain-prefixed key (such as \"acme.io/foo\")")
		return
	}
	v.problems(p, k, validation.SubdomainProblems(domain))
	v.problems(p, k, qualifiedNameProblems(name))
}

// decodedBytes is a []byte member as the Go decoder reads it: base64.
func decodedBytes(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}

// stubRequest checks a PKCS#10 stub: parsed, of a supported key and its
// signature valid.
func (v *validator) stubRequest(s string) {
	const p = "spec.stubPKCS10Request"
	der := decodedBytes(s)
	if len(der) > maxStubRequestBytes {
		v.tooLong(p, maxStubRequestBytes)
		return
	}
	req, err := x509.ParseCertificateRequest(der)
	if err != nil {
		v.add(FieldError{Type: meta.CauseFieldValueInvalid, Field: p, Detail: "must be a valid PKCS#10 CSR"})
		return
	}
	switch pub := req.PublicKey.(type) {
	case ed25519.PublicKey:
	case *ecdsa.PublicKey:
		if pub.Curve != elliptic.P256() && pub.Curve != elliptic.P384() && pub.Curve != elliptic.P521() {
			v.invalid(p, "curve "+pub.Curve.Params().Name, "elliptic public keys must use curve P256, P384, or P521")
			return
		}
	case *rsa.PublicKey:
		if bits := pub.Size() * 8; bits != 3072 && bits != 4096 {
			v.invalid(p, strconv.Itoa(bits)+"-bit modulus", "RSA keys must have modulus size 3072 or 4096")
			return
		}
	default:
		v.add(FieldError{Type: meta.CauseFieldValueInvalid, Field: p, Detail: "unknown public key type; supported types are Ed25519, ECDSA, and RSA"})
		return
	}
	if req.CheckSignature() != nil {
		v.add(FieldError{Type: meta.CauseFieldValueInvalid, Field: p, Detail: "invalid signature"})
	}
}

// pkixKey checks the deprecated key pair of a request: a PKIX public key
// of a supported kind and size, and its signature of the pod's uid.
func (v *validator) pkixKey(pkix, proof, podUID string) {
	const p, pp = "spec.pkixPublicKey", "spec.proofOfPossession"
	key, sig := decodedBytes(pkix), decodedBytes(proof)
	if len(key) > maxPKIXKeyBytes {
		v.tooLong(p, maxPKIXKeyBytes)
		return
	}
	if len(sig) > maxProofBytes {
		v.tooLong(pp, maxProofBytes)
		return
	}
	pubAny, err := x509.ParsePKIXPublicKey(key)
	if err != nil {
		v.invalid(p, base64.StdEncoding.EncodeToString(key), "must be a valid PKIX-serialized public key")
		return
	}
	digest := sha256.Sum256([]byte(podUID))
	verified := true
	switch pub := pubAny.(type) {
	case ed25519.PublicKey:
		verified = ed25519.Verify(pub, []byte(podUID), sig)
	case *ecdsa.PublicKey:
		if pub.Curve != elliptic.P256() && pub.Curve != elliptic.P384() && pub.Curve != elliptic.P521() {
			v.invalid(p, "curve "+pub.Curve.Params().Name, "elliptic public keys must use curve P256 or P384")
			return
		}
		verified = ecdsa.VerifyASN1(pub, digest[:], sig)
	case *rsa.PublicKey:
		if bits := pub.Size() * 8; bits != 3072 && bits != 4096 {
			v.invalid(p, strconv.Itoa(bits)+"-bit modulus", "RSA keys must have modulus size 3072 or 4096")
			return
		}
		verified = rsa.VerifyPSS(pub, crypto.SHA256, digest[:], sig, nil) == nil
	default:
		v.invalid(p, base64.StdEncoding.EncodeToString(key), "unknown public key type; supported types are Ed25519, ECDSA, and RSA")
		return
	}
	if !verified {
		v.add(FieldError{Type: meta.CauseFieldValueInvalid, Field: pp, Detail: "could not verify proof-of-possession signature"})
	}
}

// clusterTrustBundleUpdate forbids changing a bundle's signer name. The
// PEM text is checked again only when it changed, as the real server
// does (it skips the parse of an unchanged bundle); the update's other
// checks are those of a create.
func clusterTrustBundleUpdate(v *validator, obj, old *jsonv.Value) {
	spec, oldSpec := sub(obj, "spec"), sub(old, "spec")
	if s := str(spec, "signerName"); s != str(oldSpec, "signerName") {
		v.invalid("spec.signerName", s, "field is immutable")
	}
}

// podCertificateRequestUpdate forbids any change of a request's spec,
// shown as the real server's Go struct.
func podCertificateRequestUpdate(v *validator, obj, old *jsonv.Value) {
	spec := sub(obj, "spec")
	if jsonv.Equal(*spec, *sub(old, "spec")) {
		return
	}
	shown := jsonv.NewObject()
	for _, f := range [][2]string{{"SignerName", "signerName"}, {"PodName", "podName"}, {"PodUID", "podUID"},
		{"ServiceAccountName", "serviceAccountName"}, {"ServiceAccountUID", "serviceAccountUID"}, {"NodeName", "nodeName"}, {"NodeUID", "nodeUID"}} {
		shown.Set(f[0], jsonv.NewString(str(spec, f[1])))
	}
	for _, f := range [][2]string{{"MaxExpirationSeconds", "maxExpirationSeconds"}, {"PKIXPublicKey", "pkixPublicKey"},
		{"ProofOfPossession", "proofOfPossession"}, {"StubPKCS10Request", "stubPKCS10Request"}, {"UnverifiedUserAnnotations", "unverifiedUserAnnotations"}} {
		val := jsonv.Value{Kind: jsonv.Null}
		if x := spec.Get(f[1]); x != nil {
			val = x.Clone()
		}
		shown.Set(f[0], val)
	}
	v.invalidRaw("spec", string(jsonv.Marshal(shown)), "field is immutable")
}
