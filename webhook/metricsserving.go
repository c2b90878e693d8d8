package webhook

import (
	"fmt"

	"github.com/go-logr/logr"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	meshschema "github.com/meshguard/meshguard/schema"
)

// metricsOptions serve the Prometheus metrics over HTTPS (a self-signed
// certificate controller-runtime generates) to callers the API server
// authenticates (TokenReview) and authorizes to GET the /metrics non-resource URL
// (SubjectAccessReview): the metrics name policy kinds, rule codes and request
// rates, and the port is reachable by any pod the NetworkPolicy lets in. Plain
// HTTP only with MetricsSecure false.
func metricsOptions(o Options) metricsserver.Options {
	m := metricsserver.Options{BindAddress: o.MetricsAddr}
	if o.MetricsSecure {
		m.SecureServing = true
		m.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	return m
}

// checkMetricsAndSchema reports metrics and schema-check options that cannot work.
func (o Options) checkMetricsAndSchema() error {
	switch o.SchemaCheck {
	case "", SchemaCheckAuto, SchemaCheckAlways, SchemaCheckNever:
	default:
		return fmt.Errorf("--schema-check must be auto, always or never (got %q)", o.SchemaCheck)
	}
	if o.Offline && o.MetricsSecure && o.MetricsAddr != "" && o.MetricsAddr != "0" {
		return fmt.Errorf("--offline has no API server to authenticate metrics scrapers with: add --metrics-bind-address 0, or --metrics-secure=false for plain HTTP")
	}
	return nil
}

// addSchemaCheck returns Handlers.SchemaRedundant for o.SchemaCheck, adding the
// watch of installed CRDs to mgr for auto. Offline there is no installed CRD to
// compare with: the layer always runs, as it does for lint.
func addSchemaCheck(mgr manager.Manager, o Options, log logr.Logger) (func(schema.GroupVersionKind) bool, error) {
	switch {
	case o.SchemaCheck == SchemaCheckNever:
		return func(schema.GroupVersionKind) bool { return true }, nil
	case o.SchemaCheck == SchemaCheckAlways || o.Offline:
		return nil, nil
	}
	meta, err := metadata.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, err
	}
	crds, err := apiextensionsclient.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, err
	}
	set, ok := o.Settings.Schemas.(*meshschema.Set)
	if !ok {
		return nil, fmt.Errorf("--schema-check=auto compares the embedded CRDs (*schema.Set) with the installed ones, not %T", o.Settings.Schemas)
	}
	s := NewInstalledSchemas(set, meta, crds, log.WithName("schema-check"))
	return s.Redundant, mgr.Add(s)
}
