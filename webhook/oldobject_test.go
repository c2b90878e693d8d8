package webhook

import (
	"context"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/api"
)

// TestUndecodableOldObjectIsRefused sends UPDATEs and DELETEs whose oldObject is
// missing or not an object: each is refused (400) with a message that names the
// oldObject, by both handlers, instead of being judged without the checks that
// compare with the stored object (MG011, MG013). The same requests with the stored
// object are allowed, so the refusal comes from the oldObject alone.
func TestUndecodableOldObjectIsRefused(t *testing.T) {
	stored := mtpWith("app", "kuma.io/mesh=default", "kuma.io/origin=zone", "kuma.io/zone=zone-1")
	// A user moving the policy to another mesh: MG011 when the old object is seen.
	moved := mtpWith("app", "kuma.io/mesh=other", "kuma.io/origin=zone", "kuma.io/zone=zone-1")
	synced := mtpWith("mesh-system", syncedLabels...)
	eng := trustEngine(api.ModeZone)
	type handler func(context.Context, admission.Request) admission.Response
	for _, tc := range []struct {
		name     string
		op       admissionv1.Operation
		obj, old *unstructured.Unstructured
		handlers map[string]handler
	}{
		{name: "UPDATE", op: admissionv1.Update, obj: moved, old: stored,
			handlers: map[string]handler{"validate": eng.Validate, "mutate": eng.Mutate}},
		{name: "DELETE", op: admissionv1.Delete, old: synced, handlers: map[string]handler{"validate": eng.Validate}},
	} {
		for hname, h := range tc.handlers {
			for _, raw := range []struct{ name, raw string }{
				{"missing", ""}, {"null", "null"}, {"a list", "[1,2]"}, {"broken JSON", `{"metadata":`},
			} {
				t.Run(tc.name+"/"+hname+"/"+raw.name, func(t *testing.T) {
					req := opRequest(t, tc.op, tc.obj, tc.old)
					req.OldObject = runtime.RawExtension{Raw: []byte(raw.raw)}
					resp := h(context.Background(), req)
					if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusBadRequest ||
						!strings.Contains(resp.Result.Message, "oldObject cannot be decoded") {
						t.Fatalf("want a 400 refusal naming the oldObject, got allowed=%v %+v", resp.Allowed, resp.Result)
					}
				})
			}
		}
		// With the stored object sent: the UPDATE is judged (MG011 denies the mesh
		// change), the DELETE is judged (MG013 refuses deleting what global synced).
		resp := eng.Validate(context.Background(), opRequest(t, tc.op, tc.obj, tc.old))
		if resp.Allowed || resp.Result == nil || resp.Result.Code == http.StatusBadRequest {
			t.Errorf("%s with its oldObject: want the stored object's checks to deny, got allowed=%v %+v", tc.name, resp.Allowed, resp.Result)
		}
	}
}

// opRequest is an UPDATE (obj, old) or DELETE (old only) as the API server sends it.
func opRequest(t *testing.T, op admissionv1.Operation, obj, old *unstructured.Unstructured) admission.Request {
	t.Helper()
	if obj != nil {
		return admissionRequest(t, "uid-old", op, obj, old, "alice")
	}
	r := admissionRequest(t, "uid-old", op, old, old, "alice")
	r.Object = runtime.RawExtension{}
	return r
}
