package webhook

import (
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/validate"
)

// PrivilegedSets returns the user and group sets of Handlers from the options: the
// built-in trusted users of the configured system namespace (api.PrivilegedUsers)
// plus --privileged-users, and --privileged-groups.
func PrivilegedSets(o Options) (users, groups map[string]bool) {
	return set(api.PrivilegedUsers(o.Settings.SystemNamespace, o.PrivilegedUsers)), set(o.PrivilegedGroups)
}

// validateDelete answers a DELETE: the stored object (the request's oldObject) is
// checked by validate.Delete, which refuses non-privileged users' deletes of what
// the global control plane provides, on a federated zone; a DELETE whose
// oldObject cannot be decoded is refused (decodeOld). Everything else is allowed;
// the chart routes DELETE to the webhook only for the kinds and mode that need it
// (api.Kind.DeleteChecked).
func (e *Handlers) validateDelete(req admission.Request) admission.Response {
	kind := e.Registry.Lookup(schema.GroupVersionKind(req.Kind))
	if kind == nil || !kind.DeleteChecked(e.Settings.Mode) || e.privileged(req) {
		return admission.Allowed("")
	}
	// API servers since 1.15 send the object being deleted; without it what the
	// delete would remove cannot be judged, so it is refused (decodeOld).
	old, refused := decodeOld(req)
	if refused != nil {
		e.Log.Info("DELETE without a decodable oldObject; refused", "kind", kind.Kind,
			"namespace", req.Namespace, "name", req.Name)
		return *refused
	}
	errs := validate.Delete(old, kind, e.Settings, api.Request{Operation: api.OpDelete, Old: old})
	if len(errs) == 0 {
		return admission.Allowed("")
	}
	e.record(kind.Kind, validate.Result{Errors: errs})
	e.logDenied(req, kind.Kind, req.Namespace, req.Name, errs)
	return forbidden(schema.GroupResource{Group: kind.Group, Resource: kind.Plural}, kind.Kind, req.Name, errs)
}

// forbidden is a 403 Forbidden, as Kuma answers a refused delete (an Invalid 422
// would say the object is malformed, and there is no object in a DELETE): the
// message names the rule codes, and each finding is a cause with its field path.
func forbidden(gr schema.GroupResource, kind, name string, errs field.ErrorList) admission.Response {
	msgs := make([]string, 0, len(errs))
	causes := make([]metav1.StatusCause, 0, len(errs))
	for _, e := range errs {
		msg := strings.TrimSpace(e.Detail + " [" + e.Origin + "]")
		msgs = append(msgs, e.Field+": "+msg)
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseType(field.ErrorTypeForbidden), Message: msg, Field: e.Field})
	}
	status := apierrors.NewForbidden(gr, name, fmt.Errorf("%s", strings.Join(msgs, "; "))).ErrStatus
	status.Details.Kind = kind
	status.Details.Causes = causes
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: false, Result: &status}}
}
