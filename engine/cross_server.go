package engine

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/linkerd"
	"github.com/meshguard/meshguard/validate"
)

var serverGK = schema.GroupKind{Group: api.LinkerdGroup, Kind: api.KindServer}

// serverConflicts is MG350: Linkerd Servers that can select the same pod on the
// same port, whose behaviour Linkerd leaves undefined. A numeric and a named port
// are compared through the pod templates of the workloads the source holds (a lint
// run's; the webhook caches no pod templates, so there only equal numbers and
// equal names are reported).
func serverConflicts() CrossCheck {
	return CrossCheck{
		Codes:    []string{validate.CodeLinkerdServerConflict},
		Subjects: []schema.GroupKind{serverGK},
		Inputs:   []schema.GroupKind{serverGK, PodsGK},
		Fields:   func(s Subject) []string { return []string{selectorPath(s).String()} },
		Run:      runServerConflicts,
	}
}

func runServerConflicts(ctx context.Context, s Subject, src Source) field.ErrorList {
	self, ok := linkerd.ServerFromObject(s.Object)
	if !ok {
		return nil
	}
	stored, _ := src.List(ctx, serverGK, self.Namespace)
	others := make([]linkerd.Server, 0, len(stored))
	for _, u := range stored {
		if o, ok := linkerd.ServerFromObject(u); ok {
			others = append(others, o)
		}
	}
	workloads, _ := src.Workloads(ctx, self.Namespace)
	names, ports := linkerd.ConflictsWith(self, others, workloads)
	path := selectorPath(s)
	var out field.ErrorList
	for i, name := range names {
		msg := linkerd.Message(self.Name, name, ports[i])
		out = append(out, field.Invalid(path, strings.TrimPrefix(ports[i], "port "), msg).WithOrigin(validate.CodeLinkerdServerConflict))
	}
	return out
}

// selectorPath is where a Server's conflict finding points: its selector (the
// port is in the message).
func selectorPath(s Subject) *field.Path {
	if sv, ok := linkerd.ServerFromObject(s.Object); ok && sv.External {
		return field.NewPath("spec", "externalWorkloadSelector")
	}
	return field.NewPath("spec", "podSelector")
}
