// Package webhooktest holds the fixture cluster the webhook's tests and
// benchmarks share with the load generators in hack/: the stored
// MeshTrafficPermissions of a small mesh, the incoming policy and its
// AdmissionReviews, a 2.9 MB policy, and admission handlers configured as
// `meshguard serve` configures them. It is imported by tests and hack/ only.
package webhooktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/meshguard/meshguard/api"
)

// Names of the incoming policy of every request.
const (
	IncomingNamespace = "backend-ns"
	IncomingName      = "backend-permissions"
	uidPlaceholder    = "00000000-0000-4000-8000-000000000000"
)

// appNamespaces are the workloads of the fixture cluster; each has a namespace and
// an `app` label of the same stem.
func appNamespaces() []string {
	return []string{"backend", "frontend", "orders", "payments", "inventory", "shipping", "users", "search", "notifications"}
}

func subset(service string, action string) map[string]any {
	return map[string]any{
		"targetRef": map[string]any{"kind": string(api.RefMeshSubset), "tags": map[string]any{"kuma.io/service": service}},
		"default":   map[string]any{"action": action},
	}
}

// mtp builds a MeshTrafficPermission the way the mutating webhook stores it (mesh
// and role labels set), with the metadata an informer cache holds.
func mtp(ns, name, role string, rv int, target map[string]any, from ...map[string]any) unstructured.Unstructured {
	items := make([]any, len(from))
	for i, f := range from {
		items[i] = f
	}
	return unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kuma.io/v1alpha1",
		"kind":       api.KindMeshTrafficPermission,
		"metadata": map[string]any{
			"name":              name,
			"namespace":         ns,
			"uid":               fmt.Sprintf("6f1c2a4e-0000-4000-8000-%012d", rv),
			"resourceVersion":   fmt.Sprint(100000 + rv),
			"generation":        int64(1),
			"creationTimestamp": "2025-01-01T00:00:00Z",
			"labels": map[string]any{
				"kuma.io/mesh":          "default",
				"kuma.io/policy-role":   role,
				"k8s.kuma.io/namespace": ns,
			},
		},
		"spec": map[string]any{"targetRef": target, "from": items},
	}}
}

// StoredPolicies returns the MeshTrafficPermissions of the fixture cluster: a
// mesh-wide default deny with observability exceptions in kuma-system, and per
// workload namespace one policy for the workload and one for its v2 canary. Three
// of them select the incoming policy's proxies (app=backend), so the preview
// merges and orders policies of several roles and namespaces.
func StoredPolicies() []unstructured.Unstructured {
	mesh := map[string]any{"kind": string(api.RefMesh)}
	out := []unstructured.Unstructured{
		mtp("kuma-system", "mesh-deny-default", "system", 1, mesh,
			subset("prometheus_observability_svc_9090", "Allow"),
			map[string]any{"targetRef": mesh, "default": map[string]any{"action": "Deny"}}),
		mtp("kuma-system", "mesh-tracing", "system", 2, mesh,
			subset("otel-collector_observability_svc_4317", "Allow"),
			subset("grafana_observability_svc_3000", "AllowWithShadowDeny")),
	}
	apps := appNamespaces()
	for i, app := range apps {
		ns := app + "-ns"
		caller := apps[(i+1)%len(apps)]
		other := apps[(i+2)%len(apps)]
		name := app + "-permissions"
		if app == "backend" {
			name = "backend-batch-callers" // the incoming backend-permissions is new
		}
		out = append(out,
			mtp(ns, name, "workload-owner", 10+2*i,
				map[string]any{"kind": string(api.RefDataplane), "labels": map[string]any{"app": app}},
				subset(fmt.Sprintf("%s_%s-ns_svc_8080", caller, caller), "Allow"),
				subset(fmt.Sprintf("%s_%s-ns_svc_8080", other, other), "Deny")),
			mtp(ns, app+"-canary", "workload-owner", 11+2*i,
				map[string]any{"kind": string(api.RefDataplane), "labels": map[string]any{"app": app, "version": "v2"}},
				subset(fmt.Sprintf("%s_%s-ns_svc_8080", caller, caller), "AllowWithShadowDeny")))
	}
	return out
}

// IncomingPolicy is the object of every request: backend's workload owner letting
// frontend in and shadow-denying legacy, as the mutating webhook left it.
func IncomingPolicy() map[string]any {
	u := mtp(IncomingNamespace, IncomingName, "workload-owner", 999,
		map[string]any{"kind": string(api.RefDataplane), "labels": map[string]any{"app": "backend"}},
		subset("frontend_frontend-ns_svc_8080", "Allow"),
		subset("legacy_legacy-ns_svc_8080", "AllowWithShadowDeny"))
	meta := u.Object["metadata"].(map[string]any)
	delete(meta, "resourceVersion")
	meta["annotations"] = map[string]any{
		"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrafficPermission","metadata":{"annotations":{},"name":"backend-permissions","namespace":"backend-ns"},"spec":{"from":[{"default":{"action":"Allow"},"targetRef":{"kind":"MeshSubset","tags":{"kuma.io/service":"frontend_frontend-ns_svc_8080"}}},{"default":{"action":"AllowWithShadowDeny"},"targetRef":{"kind":"MeshSubset","tags":{"kuma.io/service":"legacy_legacy-ns_svc_8080"}}}],"targetRef":{"kind":"Dataplane","labels":{"app":"backend"}}}}` + "\n",
	}
	meta["managedFields"] = []any{map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "fieldsType": "FieldsV1", "manager": "kubectl-client-side-apply",
		"operation": "Update", "time": "2025-01-01T00:00:00Z",
		"fieldsV1": map[string]any{"f:metadata": map[string]any{"f:annotations": map[string]any{".": map[string]any{}}}, "f:spec": map[string]any{".": map[string]any{}, "f:from": map[string]any{}, "f:targetRef": map[string]any{}}},
	}}
	return u.Object
}

// IncomingVariant is IncomingPolicy as its i-th distinct object: the name
// (backend-permissions-i) and the second `from` item's service tag (legacy-i) carry
// i, the last-applied-configuration annotation matching, so every variant has its
// own preview (same groups, different items) and its own result cache key.
func IncomingVariant(i int) map[string]any {
	obj := IncomingPolicy()
	name := fmt.Sprintf("%s-%d", IncomingName, i)
	service := fmt.Sprintf("legacy-%d_legacy-ns_svc_8080", i)
	meta := obj["metadata"].(map[string]any)
	meta["name"] = name
	from := obj["spec"].(map[string]any)["from"].([]any)
	from[1].(map[string]any)["targetRef"].(map[string]any)["tags"] = map[string]any{"kuma.io/service": service}
	ann := meta["annotations"].(map[string]any)
	last := ann["kubectl.kubernetes.io/last-applied-configuration"].(string)
	last = strings.Replace(last, `"name":"`+IncomingName+`"`, `"name":"`+name+`"`, 1)
	ann["kubectl.kubernetes.io/last-applied-configuration"] = strings.Replace(last, "legacy_legacy-ns_svc_8080", service, 1)
	return obj
}

// Review is an AdmissionReview v1 body with slots for the request uid, so each
// request can carry its own uid without re-encoding. A slot may also be in the
// object (its metadata.uid), as in the API server's validating requests for a
// CREATE, where every new object gets a fresh uid.
type Review struct {
	parts [][]byte
}

// NewReview encodes the AdmissionReview of a CREATE of IncomingPolicy by a user of
// the backend team, as the API server sends it to a validating webhook: the object's
// uid is the request's, so no two requests carry the same bytes (a dry run followed
// by the real create differ so, and in their creation time and managedFields,
// which meshguard's verdict key leaves out like the uid).
func NewReview() (*Review, error) {
	obj := IncomingPolicy()
	obj["metadata"].(map[string]any)["uid"] = uidPlaceholder
	return newReview(admissionv1.Create, obj, nil)
}

// NewUnchangedUpdate encodes the AdmissionReview of an UPDATE of the stored
// IncomingPolicy that changes nothing (object and oldObject equal, with their uid
// and resourceVersion): what a GitOps controller's periodic apply, a re-run `kubectl
// apply` or a server-side apply of an unchanged manifest sends. The API server calls
// validating webhooks for such updates and then skips the write.
func NewUnchangedUpdate() (*Review, error) {
	obj := IncomingPolicy()
	obj["metadata"].(map[string]any)["resourceVersion"] = "100999"
	return newReview(admissionv1.Update, obj, obj)
}

// NewReviews returns the reviews of CREATEs of IncomingVariant(0) to
// IncomingVariant(n-1).
func NewReviews(n int) ([]*Review, error) {
	out := make([]*Review, n)
	for i := range out {
		obj := IncomingVariant(i)
		obj["metadata"].(map[string]any)["uid"] = uidPlaceholder
		r, err := NewReviewOf(obj)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// NewReviewOf encodes the AdmissionReview of a CREATE of obj (a
// MeshTrafficPermission in IncomingNamespace) by a user of the backend team, as the
// API server sends it to a validating webhook.
func NewReviewOf(obj map[string]any) (*Review, error) {
	return newReview(admissionv1.Create, obj, nil)
}

func newReview(op admissionv1.Operation, obj, old map[string]any) (*Review, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	name, _, _ := unstructured.NestedString(obj, "metadata", "name")
	dryRun := false
	mtp := api.DefaultRegistry().MeshTrafficPermission()
	gvk := metav1.GroupVersionKind{Group: mtp.Group, Version: mtp.Version, Kind: mtp.Kind}
	gvr := metav1.GroupVersionResource{Group: mtp.Group, Version: mtp.Version, Resource: mtp.Plural}
	options := `{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"kubectl-client-side-apply","fieldValidation":"Strict"}`
	if op == admissionv1.Update {
		options = `{"kind":"UpdateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"kubectl-client-side-apply","fieldValidation":"Strict"}`
	}
	req := &admissionv1.AdmissionRequest{
		UID: types.UID(uidPlaceholder), Kind: gvk, Resource: gvr, RequestKind: &gvk, RequestResource: &gvr,
		Name: name, Namespace: IncomingNamespace, Operation: op,
		UserInfo: authenticationv1.UserInfo{
			Username: "alice@example.com", UID: "3d0f5e52-7a0b-4c1e-9d2a-alice",
			Groups: []string{"team-backend", "system:authenticated"},
		},
		Object:  runtime.RawExtension{Raw: raw},
		DryRun:  &dryRun,
		Options: runtime.RawExtension{Raw: []byte(options)},
	}
	if old != nil {
		if req.OldObject.Raw, err = json.Marshal(old); err != nil {
			return nil, err
		}
	}
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  req,
	})
	if err != nil {
		return nil, err
	}
	parts := bytes.Split(body, []byte(uidPlaceholder))
	if len(parts) < 2 {
		return nil, fmt.Errorf("uid placeholder not found in the encoded review")
	}
	return &Review{parts: parts}, nil
}

// Body returns the encoded review with the given uid in its slots (which must not
// need JSON escaping).
func (r *Review) Body(uid string) []byte {
	n := len(uid) * (len(r.parts) - 1)
	for _, p := range r.parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for i, p := range r.parts {
		if i > 0 {
			b = append(b, uid...)
		}
		b = append(b, p...)
	}
	return b
}

// Request decodes the review's request with the given uid, for in-process use.
func (r *Review) Request(uid string) (admissionv1.AdmissionRequest, error) {
	var ar admissionv1.AdmissionReview
	if err := json.Unmarshal(r.Body(uid), &ar); err != nil {
		return admissionv1.AdmissionRequest{}, err
	}
	return *ar.Request, nil
}

// LargePolicyItems is how many `from` items LargePolicy has: enough for a review of
// about 2.9 MB, close to the API server's 3 MiB request limit.
const LargePolicyItems = 26000

// LargePolicy is IncomingPolicy with LargePolicyItems valid `from` items (one
// MeshSubset service each, all Allow): the largest valid MeshTrafficPermission the
// API server lets through, the request of issue 27's memory bound.
func LargePolicy() map[string]any {
	obj := IncomingPolicy()
	from := make([]any, LargePolicyItems)
	for i := range from {
		from[i] = map[string]any{
			"targetRef": map[string]any{"kind": string(api.RefMeshSubset), "tags": map[string]any{"kuma.io/service": fmt.Sprintf("svc-%d_ns_svc_80", i)}},
			"default":   map[string]any{"action": "Allow"},
		}
	}
	obj["spec"].(map[string]any)["from"] = from
	return obj
}
