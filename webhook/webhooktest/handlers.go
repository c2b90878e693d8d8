package webhooktest

import (
	"context"
	"net/http"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/schema"
	"github.com/meshguard/meshguard/webhook"
)

// NewHandlers returns meshguard's admission handlers configured like `meshguard serve`
// with its default flags (Kuma's CRDs as the first layer, standalone mode, expanded preview form, the mesh's sync
// account privileged), with the RBAC preview reading stored instead of an informer
// cache. Like the server's cache List (client.UnsafeDisableDeepCopy), the lister
// hands out the stored objects themselves.
func NewHandlers(stored []unstructured.Unstructured) (*webhook.Handlers, error) {
	settings := api.DefaultSettings()
	set, err := schema.ForSettings(settings)
	if err != nil {
		return nil, err
	}
	// As serve does: no request pays for compiling a mesh's CRDs.
	if err := set.DeferredErr(); err != nil {
		return nil, err
	}
	settings.Schemas = set
	index, err := webhook.IndexedPolicies(stored, settings.SystemNamespace)
	if err != nil {
		return nil, err
	}
	preview := webhook.NewPreview(index, kumaauthz.Options{Form: kumaauthz.FormExpanded, MaxExpandedRules: 64,
		SystemNamespace: settings.SystemNamespace, MaxGroupItems: webhook.DefaultPreviewMaxItems})
	return &webhook.Handlers{
		Registry:        api.DefaultRegistry(),
		Settings:        settings,
		PrivilegedUsers: map[string]bool{"system:serviceaccount:kuma-system:kuma-control-plane": true},
		Preview:         preview,
		Log:             logr.Discard(),
	}, nil
}

// Noop is the floor the validating handler is compared with: it allows everything
// without looking at the request.
func Noop(context.Context, admission.Request) admission.Response { return admission.Allowed("") }

// ControllerRuntime serves h as `meshguard serve` and any webhook built on
// controller-runtime do: behind its admission.Webhook and codec.
func ControllerRuntime(h admission.HandlerFunc) http.Handler { return &crwebhook.Admission{Handler: h} }
