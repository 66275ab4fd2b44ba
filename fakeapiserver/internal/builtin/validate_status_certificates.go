package builtin

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// The status writes of a CertificateSigningRequest (a signer's
// certificate and Failed condition) and an APIService (its availability).

// prepareCSRStatus keeps a CSR's Approved and Denied conditions as stored
// when the write has as many of each (they change only through
// /approval), and fills each condition's missing lastUpdateTime with now
// and missing lastTransitionTime with that of the stored condition of the
// same type and status (now when there is none).
func prepareCSRStatus(status, old *jsonv.Value, now time.Time) {
	conds := status.Get("conditions")
	if conds == nil || conds.Kind != jsonv.Array {
		return
	}
	oldConds := items(old, "conditions")
	for _, t := range []string{"Approved", "Denied"} {
		var was, is []int
		for i, c := range oldConds {
			if str(c, "type") == t {
				was = append(was, i)
			}
		}
		for i := range conds.Arr {
			if str(&conds.Arr[i], "type") == t {
				is = append(is, i)
			}
		}
		if len(was) == len(is) {
			for i, j := range is {
				conds.Arr[j] = oldConds[was[i]].Clone()
			}
		}
	}
	wrapped := jsonv.NewObject()
	wrapped.Set("status", old.Clone())
	stampCSRConditions(conds, &wrapped, now)
}

// csrStatus checks a CSR's conditions as an approval does, that a status
// write adds no Approved or Denied condition, and that the certificate
// is PEM certificates and, once issued, never changes.
func csrStatus(v *validator, _ *meta.ObjectMeta, obj, old *jsonv.Value) {
	status, oldStatus := sub(obj, "status"), sub(old, "status")
	conds := status.Get("conditions")
	if conds == nil || conds.Kind != jsonv.Array {
		conds = &jsonv.Value{Kind: jsonv.Array}
	}
	v.errs = append(v.errs, approvalErrors(conds, old)...)
	for _, t := range []string{"Approved", "Denied"} {
		was, is := 0, 0
		for _, c := range items(oldStatus, "conditions") {
			if str(c, "type") == t {
				was++
			}
		}
		for _, c := range items(status, "conditions") {
			if str(c, "type") == t {
				is++
			}
		}
		if is > was {
			v.forbidden("status.conditions", "updates may not add a condition of type "+strconv.Quote(t))
		}
	}
	cert, oldCert := str(status, "certificate"), str(oldStatus, "certificate")
	if cert == oldCert {
		return
	}
	if certificateProblem(decodedBytes(oldCert)) == nil {
		if err := certificateProblem(decodedBytes(cert)); err != nil {
			v.invalid("status.certificate", "<certificate data>", err.Error())
		}
	}
	if oldCert != "" {
		v.forbidden("status.certificate", "updates may not modify existing certificate content")
	}
}

// certificateProblem reports what keeps data from being a list of PEM
// CERTIFICATE blocks without headers (nil for none or an empty list).
func certificateProblem(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	blocks := 0
	for {
		block, rest := pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) != 0 {
			return errors.New("no PEM block headers are permitted")
		}
		blocks++
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return errors.New("found CERTIFICATE PEM block containing 0 certificates")
		}
		data = rest
	}
	if blocks == 0 {
		return errors.New("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// apiServiceStatus checks that each of an APIService's conditions has a
// status of True, False or Unknown.
func apiServiceStatus(v *validator, _ *meta.ObjectMeta, obj, _ *jsonv.Value) {
	for i, c := range items(sub(obj, "status"), "conditions") {
		if s := str(c, "status"); s != "True" && s != "False" && s != "Unknown" {
			v.notSupported(index("status.conditions", i)+".status", s, "True", "False", "Unknown")
		}
	}
}
