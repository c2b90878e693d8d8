package kit

import (
	"fmt"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/webhook/webhooktest"
)

// LargeReview is the AdmissionReview of a valid MeshTrafficPermission with items
// `from` entries (26,000: about 2.9 MB, just under the API server's 3 MB limit).
func LargeReview(items int) ([]byte, error) {
	obj := webhooktest.IncomingPolicy()
	from := make([]any, items)
	for i := range from {
		from[i] = map[string]any{
			"targetRef": map[string]any{"kind": string(api.RefMeshSubset), "tags": map[string]any{"kuma.io/service": fmt.Sprintf("svc-%d_ns_svc_80", i)}},
			"default":   map[string]any{"action": "Allow"},
		}
	}
	obj["spec"].(map[string]any)["from"] = from
	obj["metadata"].(map[string]any)["name"] = "large"
	r, err := webhooktest.NewReviewOf(obj)
	if err != nil {
		return nil, err
	}
	return r.Body("00000000-0000-4000-8000-00000000beef"), nil
}
