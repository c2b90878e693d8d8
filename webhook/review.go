package webhook

import (
	"encoding/base64"
	"maps"
	"slices"
	"strconv"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/internal/fastjson"
)

// The AdmissionReview versions the fast codec reads; controller-runtime decodes
// both into the v1 types, and so does decodeReview.
const (
	reviewKind    = "AdmissionReview"
	reviewV1      = "admission.k8s.io/v1"
	reviewV1beta1 = "admission.k8s.io/v1beta1"
	reviewGroup   = "admission.k8s.io"
)

// decodeReview reads an AdmissionReview body into what controller-runtime's
// admission.Webhook would decode from it (apimachinery's universal deserializer
// into a v1 AdmissionReview) and the review's own group/version/kind, for the
// plain form the API server writes: the body starts with '{', kind and apiVersion
// name an AdmissionReview of v1 or v1beta1, every key is one of the fields'
// names, once, without escapes, and each value has its field's type (null only
// where the API server writes it: the raw objects, dryRun, requestKind and
// requestResource). ok=false for everything else, including malformed JSON; the
// caller then hands the body to controller-runtime, whose answer (an error, or a
// decoding this codec does not attempt) is the reference. FuzzReviewCodec holds
// every ok=true decoding to controller-runtime's.
//
// Why not controller-runtime's decoder: it scans the body twice (once with
// encoding/json for apiVersion and kind, once more to decode), which the load test
// measured at about a third of all CPU spent per request, more than TLS.
func decodeReview(body []byte) (req admissionv1.AdmissionRequest, gvk schema.GroupVersionKind, ok bool) {
	if len(body) == 0 || body[0] != '{' {
		return req, gvk, false
	}
	c := fastjson.NewCursor(body)
	var seen fieldSet
	var kind, apiVersion string
	haveRequest := false
	ok = c.Object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "kind":
			kind, ok = c.String()
			return seen.first(0) && ok
		case "apiVersion":
			apiVersion, ok = c.String()
			return seen.first(1) && ok
		case "request":
			haveRequest = true
			return seen.first(2) && decodeRequest(&c, &req)
		}
		return false
	}) && c.End()
	if !ok || !haveRequest || kind != reviewKind || (apiVersion != reviewV1 && apiVersion != reviewV1beta1) {
		return admissionv1.AdmissionRequest{}, gvk, false
	}
	return req, schema.GroupVersionKind{Group: reviewGroup, Version: apiVersion[len(reviewGroup)+1:], Kind: kind}, true
}

// fieldSet records which fields of one object were read, so that a repeated key
// (encoding/json keeps the last value) sends the body to controller-runtime.
type fieldSet uint32

// first marks field i (below 32) as read and reports whether it was the first time.
func (s *fieldSet) first(i uint) bool {
	if i >= 32 || *s&(1<<i) != 0 {
		return false
	}
	*s |= 1 << i
	return true
}

// decodeRequest reads the request member of an AdmissionReview.
func decodeRequest(c *fastjson.Cursor, r *admissionv1.AdmissionRequest) bool {
	var seen fieldSet
	str := func(i uint, dst *string) bool {
		s, ok := c.String()
		*dst = s
		return ok && seen.first(i)
	}
	// value marks field i read and reads a null if one stands there: more reports
	// that a value other than null is next.
	value := func(i uint) (more, ok bool) {
		if !seen.first(i) {
			return false, false
		}
		return !c.Null(), true
	}
	raw := func(i uint, dst *[]byte) bool {
		if more, ok := value(i); !more {
			return ok
		}
		b, ok := c.Raw()
		*dst = b
		return ok
	}
	return c.Object(func(key []byte) bool {
		switch string(key) {
		case "uid":
			return str(0, (*string)(&r.UID))
		case "kind":
			return seen.first(1) && decodeGVK(c, &r.Kind)
		case "resource":
			return seen.first(2) && decodeGVR(c, &r.Resource)
		case "subResource":
			return str(3, &r.SubResource)
		case "requestKind":
			if more, ok := value(4); !more {
				return ok
			}
			r.RequestKind = &metav1.GroupVersionKind{}
			return decodeGVK(c, r.RequestKind)
		case "requestResource":
			if more, ok := value(5); !more {
				return ok
			}
			r.RequestResource = &metav1.GroupVersionResource{}
			return decodeGVR(c, r.RequestResource)
		case "requestSubResource":
			return str(6, &r.RequestSubResource)
		case "name":
			return str(7, &r.Name)
		case "namespace":
			return str(8, &r.Namespace)
		case "operation":
			return str(9, (*string)(&r.Operation))
		case "userInfo":
			return seen.first(10) && decodeUserInfo(c, &r.UserInfo)
		case "object":
			return raw(11, &r.Object.Raw)
		case "oldObject":
			return raw(12, &r.OldObject.Raw)
		case "options":
			return raw(13, &r.Options.Raw)
		case "dryRun":
			if more, ok := value(14); !more {
				return ok
			}
			b, ok := c.Bool()
			r.DryRun = &b
			return ok
		}
		return false
	})
}

// decodeStrings reads the members of an object of string fields, in the order of
// names.
func decodeStrings(c *fastjson.Cursor, names []string, dst []*string) bool {
	var seen fieldSet
	return c.Object(func(key []byte) bool {
		i := slices.Index(names, string(key))
		if i < 0 || !seen.first(uint(i)) {
			return false
		}
		s, ok := c.String()
		*dst[i] = s
		return ok
	})
}

var gvkNames, gvrNames = []string{"group", "version", "kind"}, []string{"group", "version", "resource"}

func decodeGVK(c *fastjson.Cursor, v *metav1.GroupVersionKind) bool {
	return decodeStrings(c, gvkNames, []*string{&v.Group, &v.Version, &v.Kind})
}

func decodeGVR(c *fastjson.Cursor, v *metav1.GroupVersionResource) bool {
	return decodeStrings(c, gvrNames, []*string{&v.Group, &v.Version, &v.Resource})
}

// decodeUserInfo reads userInfo. As encoding/json does, an empty groups list or
// extra map decodes to an empty, not nil, one.
func decodeUserInfo(c *fastjson.Cursor, u *authenticationv1.UserInfo) bool {
	var seen fieldSet
	strings := func(dst *[]string) bool {
		*dst = []string{}
		return c.Array(func() bool {
			s, ok := c.String()
			*dst = append(*dst, s)
			return ok
		})
	}
	return c.Object(func(key []byte) bool {
		switch string(key) {
		case "username":
			s, ok := c.String()
			u.Username = s
			return ok && seen.first(0)
		case "uid":
			s, ok := c.String()
			u.UID = s
			return ok && seen.first(1)
		case "groups":
			return seen.first(2) && strings(&u.Groups)
		case "extra":
			if !seen.first(3) {
				return false
			}
			u.Extra = map[string]authenticationv1.ExtraValue{}
			return c.Object(func(key []byte) bool {
				if _, dup := u.Extra[string(key)]; dup {
					return false
				}
				var v []string
				ok := strings(&v)
				u.Extra[string(key)] = v
				return ok
			})
		}
		return false
	})
}

// appendReview appends what controller-runtime's admission.Webhook writes for r
// in an AdmissionReview of version gvk — json.NewEncoder(w).Encode of the
// review, newline included — byte for byte, without reflection. ok=false for a
// status carrying list metadata (no handler sets it), which the caller encodes
// with encoding/json. TestAppendReviewMatchesEncodingJSON compares the two.
// Audit annotations and the status message, which can be long and come back
// unchanged in every answer from the verdict cache, are written through memo
// (nil: none).
func appendReview(dst []byte, gvk schema.GroupVersionKind, r *admissionv1.AdmissionResponse, memo *stringMemo) ([]byte, bool) {
	if st := r.Result; st != nil && st.ListMeta != (metav1.ListMeta{}) {
		return dst, false
	}
	dst = append(dst, '{')
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	if kind != "" {
		dst = append(dst, `"kind":`...)
		dst = fastjson.AppendString(dst, kind)
		dst = append(dst, ',')
	}
	if apiVersion != "" {
		dst = append(dst, `"apiVersion":`...)
		dst = fastjson.AppendString(dst, apiVersion)
		dst = append(dst, ',')
	}
	dst = append(dst, `"response":{"uid":`...)
	dst = fastjson.AppendString(dst, string(r.UID))
	dst = append(dst, `,"allowed":`...)
	dst = strconv.AppendBool(dst, r.Allowed)
	if r.Result != nil {
		dst = append(dst, `,"status":`...)
		dst = appendStatus(dst, r.Result, memo)
	}
	if len(r.Patch) > 0 {
		dst = append(dst, `,"patch":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, r.Patch)
		dst = append(dst, '"')
	}
	if r.PatchType != nil {
		dst = append(dst, `,"patchType":`...)
		dst = fastjson.AppendString(dst, string(*r.PatchType))
	}
	if len(r.AuditAnnotations) > 0 {
		dst = append(dst, `,"auditAnnotations":{`...)
		for i, k := range slices.Sorted(maps.Keys(r.AuditAnnotations)) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = fastjson.AppendString(dst, k)
			dst = append(dst, ':')
			dst = memo.appendString(dst, r.AuditAnnotations[k])
		}
		dst = append(dst, '}')
	}
	if len(r.Warnings) > 0 {
		dst = append(dst, `,"warnings":[`...)
		for i, w := range r.Warnings {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = fastjson.AppendString(dst, w)
		}
		dst = append(dst, ']')
	}
	return append(dst, "}}\n"...), true
}

// members writes the members of one JSON object, leaving out empty strings
// (the omitempty fields of metav1.Status and its parts).
type members struct {
	dst   []byte
	first bool
}

func (m *members) key(k string) {
	if !m.first {
		m.dst = append(m.dst, ',')
	}
	m.first = false
	m.dst = append(m.dst, '"')
	m.dst = append(m.dst, k...)
	m.dst = append(m.dst, '"', ':')
}

func (m *members) str(k, v string) {
	if v != "" {
		m.key(k)
		m.dst = fastjson.AppendString(m.dst, v)
	}
}

func (m *members) int(k string, v int32) {
	if v != 0 {
		m.key(k)
		m.dst = strconv.AppendInt(m.dst, int64(v), 10)
	}
}

// appendStatus writes a metav1.Status without list metadata as encoding/json
// does: its fields in declaration order, the embedded TypeMeta's first, the
// metadata always (a struct is never omitted as empty), the rest when not empty.
func appendStatus(dst []byte, st *metav1.Status, memo *stringMemo) []byte {
	m := members{dst: append(dst, '{'), first: true}
	m.str("kind", st.Kind)
	m.str("apiVersion", st.APIVersion)
	m.key("metadata")
	m.dst = append(m.dst, '{', '}')
	m.str("status", st.Status)
	if st.Message != "" {
		m.key("message")
		m.dst = memo.appendString(m.dst, st.Message)
	}
	m.str("reason", string(st.Reason))
	if d := st.Details; d != nil {
		m.key("details")
		dm := members{dst: append(m.dst, '{'), first: true}
		dm.str("name", d.Name)
		dm.str("group", d.Group)
		dm.str("kind", d.Kind)
		dm.str("uid", string(d.UID))
		if len(d.Causes) > 0 {
			dm.key("causes")
			dm.dst = append(dm.dst, '[')
			for i, cause := range d.Causes {
				if i > 0 {
					dm.dst = append(dm.dst, ',')
				}
				cm := members{dst: append(dm.dst, '{'), first: true}
				cm.str("reason", string(cause.Type))
				cm.str("message", cause.Message)
				cm.str("field", cause.Field)
				dm.dst = append(cm.dst, '}')
			}
			dm.dst = append(dm.dst, ']')
		}
		dm.int("retryAfterSeconds", d.RetryAfterSeconds)
		m.dst = append(dm.dst, '}')
	}
	m.int("code", st.Code)
	return append(m.dst, '}')
}
