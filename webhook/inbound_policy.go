package webhook

import (
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/validate"
)

// validateAnnotations answers the chart's annotations.meshguard.io webhook: Namespaces,
// Pods and workloads that carry config.linkerd.io/default-inbound-policy (the API
// server's matchConditions send only those). They get this one check (MG341) and
// nothing else: no defaults, no other rules, no previews. ok=false means the request
// is not for a kind of this check (registry kinds and unknown kinds go on as before).
func (e *Handlers) validateAnnotations(req admission.Request) (resp admission.Response, ok bool) {
	gvk := schema.GroupVersionKind(req.Kind)
	if !validate.InboundPolicyAnnotationKind(gvk) || e.Registry.Lookup(gvk) != nil {
		return admission.Response{}, false
	}
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed(""), true
	}
	obj, err := toUnstructured(req.Object.Raw)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("object is not valid JSON: %w", err)), true
	}
	// The check reads the object's own apiVersion and kind; trust the request's.
	obj.SetGroupVersionKind(gvk)
	errs := validate.DefaultInboundPolicy(obj)
	if len(errs) == 0 {
		return admission.Allowed(""), true
	}
	e.record(gvk.Kind, validate.Result{Errors: errs})
	name := obj.GetName()
	if name == "" {
		name = req.Name
	}
	e.logDenied(req, gvk.Kind, req.Namespace, name, errs)
	return deniedGK(gvk.GroupKind(), name, errs, nil), true
}
