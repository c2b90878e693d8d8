package api

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Mode is how the Kuma control plane beside meshguard is deployed.
type Mode string

// The control-plane modes: a standalone (non-federated) zone, a zone federated to a
// global control plane, and the global control plane itself.
const (
	ModeStandalone Mode = "standalone"
	ModeZone       Mode = "zone"
	ModeGlobal     Mode = "global"
)

// Sugar says whether the syntactic-sugar defaults are written into spec.
type Sugar string

// Sugar modes: expand writes the implied values into spec, keep only adds labels.
const (
	SugarExpand Sugar = "expand"
	SugarKeep   Sugar = "keep"
)

// Settings is the deployment context every engine stage needs; the CLI and the
// webhook fill it from the same flags so that both doors give the same answers.
type Settings struct {
	Mode            Mode
	Zone            string
	SystemNamespace string
	DefaultMesh     string
	Sugar           Sugar
	// KumaVersion is the Kuma release whose CRDs the cluster serves ("2.14"): its
	// schemas are the first layer of validation, as the API server applies them.
	KumaVersion string
	// LinkerdVersion is the Linkerd release whose CRDs the cluster serves
	// ("edge-26.8.3"): Linkerd's policy.linkerd.io kinds and the Gateway API route
	// CRDs it bundles, checked as the API server checks them.
	LinkerdVersion string
	// GatewayAPIVersion is the Gateway API release whose route CRDs the cluster
	// serves ("v1.5.1"), which Linkerd users install themselves since Linkerd 2.19;
	// "" means the one LinkerdVersion bundles or documents (schema.GatewayAPIFor).
	GatewayAPIVersion string
	// Schemas are the compiled CRDs of KumaVersion and LinkerdVersion (package schema's
	// Set, loaded by schema.LoadInto). Every door loads them; nil skips the schema
	// layer, which only engine unit tests of the later layers do.
	Schemas SchemaSet
	// UnknownFields is how a field the CRD does not declare is reported (MG001):
	// the zero value warns, as the API server answers the webhook; the file doors
	// default to an error, as kubectl apply refuses it.
	UnknownFields UnknownFieldMode
}

// DefaultKumaVersion is the Kuma release whose CRDs meshguard checks against unless
// --kuma-version says otherwise: the release the registry's Kuma kinds follow.
// Package schema embeds its CRDs (a test there holds the two together).
const DefaultKumaVersion = "2.14"

// DefaultLinkerdVersion is the Linkerd release whose CRDs (its policy.linkerd.io kinds
// and the Gateway API routes it bundles) meshguard checks against unless
// --linkerd-version says otherwise. Package schema embeds its CRDs.
const DefaultLinkerdVersion = LinkerdEdge

// DefaultSettings are the flag defaults: a standalone zone with Kuma's namespace.
// Schemas stay nil until schema.LoadInto: compiling CRDs costs tens of milliseconds.
func DefaultSettings() Settings {
	return Settings{Mode: ModeStandalone, SystemNamespace: DefaultSystemNS, DefaultMesh: DefaultMeshName,
		Sugar: SugarExpand, KumaVersion: DefaultKumaVersion, LinkerdVersion: DefaultLinkerdVersion}
}

// Check reports settings that cannot work together, so both doors fail at start-up
// rather than on the first object. Whether KumaVersion and LinkerdVersion are
// releases meshguard embeds is package schema's to say (schema.CheckSettings runs
// Check and then that), so that api needs no CRDs.
func (s Settings) Check() error {
	switch s.Mode {
	case ModeStandalone, ModeGlobal:
		if s.Zone != "" {
			return fmt.Errorf("--zone is only meaningful with --mode zone (mode is %q)", s.Mode)
		}
	case ModeZone:
		if s.Zone == "" {
			return fmt.Errorf("--mode zone needs --zone NAME (the zone this cluster is)")
		}
	default:
		return fmt.Errorf("--mode must be one of standalone, zone, global (got %q)", s.Mode)
	}
	switch s.Sugar {
	case SugarExpand, SugarKeep:
	default:
		return fmt.Errorf("--sugar must be expand or keep (got %q)", s.Sugar)
	}
	if s.SystemNamespace == "" {
		return fmt.Errorf("--system-namespace must not be empty")
	}
	if s.DefaultMesh == "" {
		return fmt.Errorf("--default-mesh must not be empty")
	}
	return s.UnknownFields.check()
}

// Operation is the admission operation; the linter always uses Create.
type Operation string

// Admission operations meshguard distinguishes.
const (
	OpCreate Operation = "CREATE"
	OpUpdate Operation = "UPDATE"
	OpDelete Operation = "DELETE"
)

// Request is what one admission call (or one linted document) brings beside the
// object: the operation, the previous object on UPDATE and whether the caller is a
// privileged user (the mesh's own sync service account) whose writes are trusted.
type Request struct {
	Operation  Operation
	Old        *unstructured.Unstructured
	Privileged bool
	// SchemaChecked says that the API server has already pruned, defaulted and
	// validated the object against the very CRD schema the schema layer holds for
	// its kind (the webhook knows it from the installed CRD): the layer is then
	// skipped, its answer known to be empty. The linter never sets it.
	SchemaChecked bool
	// Universal says the object is applied to a Universal control plane (kumactl
	// apply, Kuma's REST API) as a Universal-format document: it has no namespace
	// and no policy role, and Kuma's REST decoding drops fields its types do not
	// declare instead of refusing them.
	Universal bool
}
