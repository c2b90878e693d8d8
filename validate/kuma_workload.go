package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// workload mirrors Kuma's Workload validator: a name of at most 253 characters (on
// Kubernetes the API server's own limit, so it only matters for display names).
func (v *validator) workload(_ *api.WorkloadSpec, _ *field.Path) {
	v.nameLength(253, CodeWorkload)
}
