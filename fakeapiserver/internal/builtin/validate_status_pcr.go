package builtin

import (
	"crypto/x509"
	"encoding/pem"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// A PodCertificateRequest's status writes (what its signer sends).

// pcrTerminal are the condition types that end a PodCertificateRequest.
var pcrTerminal = []string{"Issued", "Denied", "Failed"}

// pcrMaxChain is the longest certificateChain, in bytes.
const pcrMaxChain = 100 * 1024

// podCertificateRequestStatus checks a PodCertificateRequest's new status
// as the real ValidatePodCertificateRequestStatusUpdate does: only the
// terminal condition types, at most one of them, each True, valid as
// metav1.Conditions; then, as long as those hold, a status that no longer
// changes once terminal, nothing but conditions when denying or failing,
// and no change at all unless becoming terminal. Issuing needs a
// certificate chain of at most 100 KiB whose first PEM block is a
// CERTIFICATE that parses; what the real server checks beyond (the
// leaf's names and key, its times against the request) is not checked.
func podCertificateRequestStatus(v *validator, _ *meta.ObjectMeta, obj, old *jsonv.Value) {
	status, oldStatus := sub(obj, "status"), sub(old, "status")
	conds := items(status, "conditions")
	known := 0
	for i, c := range conds {
		p := "status.conditions.[" + strconv.Itoa(i) + "]"
		if t := str(c, "type"); !contains(pcrTerminal, t) {
			v.notSupported(p+".type", t, pcrTerminal...)
			continue
		} else if known++; known > 1 {
			v.invalid(p+".type", t, `There may be at most one condition with type "Issued", "Denied", or "Failed"`)
		}
		if s := str(c, "status"); s != "True" {
			v.notSupported(p+".status", s, "True")
		}
	}
	v.conditions("status.conditions", conds)
	if len(v.errs) > 0 {
		return
	}
	switch {
	case pcrHas(oldStatus, "Issued", "Denied", "Failed"):
		if !jsonv.Equal(*status, *oldStatus) {
			v.add(FieldError{Type: meta.CauseFieldValueInvalid, Field: "status", Detail: "immutable after PodCertificateRequest is issued, denied, or failed"})
		}
	case pcrHas(status, "Denied", "Failed"):
		for _, m := range status.Obj {
			if m.Key != "conditions" && !empty(status, m.Key) {
				v.add(FieldError{Type: meta.CauseFieldValueInvalid, Field: "status", Detail: "non-condition status fields must be empty when denying or failing the PodCertificateRequest"})
				break
			}
		}
	case pcrHas(status, "Issued"):
		v.issuedChain(str(status, "certificateChain"))
	case !jsonv.Equal(*status, *oldStatus):
		v.add(FieldError{Type: meta.CauseFieldValueInvalid, Field: "status", Detail: `status is immutable unless transitioning to "Issued", "Denied", or "Failed"`})
	}
}

// pcrHas reports a True condition of one of the types in a status.
func pcrHas(status *jsonv.Value, types ...string) bool {
	for _, c := range items(status, "conditions") {
		if str(c, "status") == "True" && contains(types, str(c, "type")) {
			return true
		}
	}
	return false
}

// issuedChain checks an issued certificate chain's size and its leaf: a
// CERTIFICATE PEM block that parses as X.509.
func (v *validator) issuedChain(chain string) {
	const p = "status.certificateChain"
	if len(chain) > pcrMaxChain {
		v.tooLong(p, pcrMaxChain)
		return
	}
	leaf, _ := pem.Decode([]byte(chain))
	switch {
	case leaf == nil:
		v.invalid(p, chain, "issued certificate chain must contain at least one certificate")
	case leaf.Type != "CERTIFICATE":
		v.invalid(p, chain, "issued certificate chain must consist entirely of CERTIFICATE PEM blocks")
	default:
		if _, err := x509.ParseCertificate(leaf.Bytes); err != nil {
			v.invalid(p, chain, "leaf certificate does not parse as valid X.509")
		}
	}
}
