package main

import (
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/linkerdauthz"
	"github.com/meshguard/meshguard/lint"
)

// checkOptions are the flags of `meshguard check`.
type checkOptions struct {
	lintOptions
	meshType       string
	from, fromMesh string
	fromIP         string
	to, toNS       string
	toMesh         string
	port, section  string
	sni            string
	method, path   string
	form           string
	linkerd        linkerdauthz.Options
	kubeconfig     string
	kubeContext    string
	// flags say whether --kuma-version and --linkerd-version were given, which
	// detection from --kubeconfig does not override.
	flags *pflag.FlagSet
}

func newCheckCmd(s streams) *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:         "check [PATH|-]... --from CLIENT --to DESTINATION",
		Annotations: map[string]string{bulkReadAnnotation: "lint"},
		Short:       "Answer whether one client may call one destination, and which policy decides",
		Long: `Check answers "may this client call that workload?" for Kuma and Linkerd, offline, from
manifests read as lint reads them (files, directories, - for standard input,
kustomizations and Helm charts rendered), and says why: the deciding policy with its
file:line, the deciding item (spec.from[2], spec.rules[0].default.deny[1], an
AuthorizationPolicy and its authentication), and the policies merged for the proxy.

Kuma: the policies that select the destination proxy are merged in Kuma's order and
compiled to the same Envoy RBAC 'meshguard preview' shows; the answer is that RBAC
evaluated for the client's certificate (and SNI, method and path for SPIFFE-matcher
policies). The shadow decision (shadow_rules, shadow_matcher) is shown when there is
one. A proxy no MeshTrafficPermission selects is denied (mTLS on; with mTLS off Kuma
programs no RBAC).
  --from  tags of the client's data plane, k=v[,k=v] (kuma.io/service among them;
          its mesh is --from-mesh, else the destination's), or a SPIFFE ID:
          spiffe://<mesh>/<service> (mesh CA) or spiffe://<trust domain>/ns/<ns>/sa/<sa>
          (MeshIdentity)
  --to    the destination's labels k=v[,k=v] (namespace --to-namespace, mesh --to-mesh),
          or a Dataplane or workload of the input: name, or Kind/name

Linkerd: the Server that takes the destination port and its HTTP routes, the
authorizations of the Server and of the matched route, or the default inbound policy.
  --from  a ServiceAccount namespace/name or a mesh TLS identity
          (name.namespace.serviceaccount.identity.linkerd.cluster.local);
          --from-ip alone is an unauthenticated client from that address
  --to    the pod's labels k=v[,k=v] (with --port), or a workload of the input, Kind/name

The mesh is inferred from --from (tags or spiffe:// are Kuma; namespace/name, a
Linkerd identity or --from-ip alone are Linkerd); --mesh-type says it outright.
See docs/check.md.

Exit codes: 0 ALLOW, 1 DENY, 2 usage or input errors.`,
		Example: `  meshguard check examples/check/kuma --from kuma.io/service=web_shop_svc_80,app=web,k8s.kuma.io/namespace=shop --to Deployment/payments --to-namespace shop
  meshguard check examples/check/kuma --from spiffe://default/web --to app=payments,kuma.io/service=payments_shop_svc_80 --to-namespace shop -o json
  meshguard check examples/check/linkerd --from shop/gateway --to Deployment/web --to-namespace shop --port 8080 --method GET --path /api`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(s, args)
		},
	}
	o.bind(cmd)
	f := cmd.Flags()
	o.flags = f
	f.StringVar(&o.meshType, "mesh-type", "auto", "auto, kuma or linkerd")
	f.StringVar(&o.from, "from", "", "the client: Kuma tags k=v,... or SPIFFE ID; Linkerd ServiceAccount ns/name or mesh TLS identity")
	f.StringVar(&o.fromMesh, "from-mesh", "", "Kuma: the client's mesh when --from is tags (default: the destination's)")
	f.StringVar(&o.fromIP, "from-ip", "", "Linkerd: the client's source IP; alone, an unauthenticated client")
	f.StringVar(&o.to, "to", "", "the destination: labels k=v,..., or Kind/name (or a Dataplane's name) in the input")
	f.StringVar(&o.toNS, "to-namespace", "", "the destination's namespace (default: --namespace)")
	f.StringVar(&o.toMesh, "to-mesh", "", "Kuma: the destination's mesh (default: its kuma.io/mesh label, else --default-mesh)")
	f.StringVar(&o.port, "port", "", "the destination port (number or name)")
	f.StringVar(&o.section, "section", "", "Kuma: the inbound (sectionName) of the destination proxy")
	f.StringVar(&o.sni, "sni", "", "Kuma: the server name the client's TLS hello carries (for sni matchers)")
	f.StringVar(&o.method, "method", "", "HTTP method (Kuma method matchers, Linkerd HTTPRoute matches)")
	f.StringVar(&o.path, "path", "", "HTTP path (Kuma path matchers, Linkerd HTTPRoute matches)")
	f.StringVar(&o.form, "form", defaultForm, "Kuma RBAC form to compile 'from' policies to: "+oneOf(formValues())+" (the answer is the same; expanded falls back to compact when large)")
	linkerdFlags(f, &o.linkerd)
	f.StringVar(&o.linkerd.TrustDomain, "trust-domain", linkerdauthz.DefaultTrustDomain, "Linkerd's identity trust domain")
	_ = f.MarkDeprecated("trust-domain", "use --linkerd-trust-domain")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "read the objects from this cluster (read-only) instead of files")
	f.StringVar(&o.kubeContext, "context", "", "the kubeconfig context to read from")
	bindOutput(cmd, &o.output, formatText, formatJSON, formatYAML)
	return cmd
}

// documents is the single place check's input comes from: the files and
// directories of args, or, with --kubeconfig/--context, the cluster.
func (o *checkOptions) documents(s streams, args []string) (lint.Loaded, error) {
	if o.kubeconfig != "" || o.kubeContext != "" {
		if len(args) > 0 {
			return lint.Loaded{}, usageErr("give either manifests or --kubeconfig/--context, not both")
		}
		return readLive(o.kubeconfig, o.kubeContext)
	}
	if len(args) == 0 {
		return lint.Loaded{}, usageErr("check needs at least one PATH, - for standard input, or --kubeconfig")
	}
	if err := checkPaths(args); err != nil {
		return lint.Loaded{}, err
	}
	return o.load(s, args), nil
}

func (o *checkOptions) validate() error {
	if err := checkOutput(o.output, []format{formatText, formatJSON, formatYAML}); err != nil {
		return err
	}
	if err := checkEnum("form", o.form, formValues()); err != nil {
		return err
	}
	if err := checkLinkerd(o.linkerd); err != nil {
		return err
	}
	if o.to == "" {
		return usageErr("no destination: give --to (labels k=v,... or Kind/name of a workload in the input)")
	}
	if o.toNS == "" {
		o.toNS = o.namespace
	}
	if strings.TrimSpace(o.from) == "" && o.fromIP == "" {
		return usageErr("no client: give --from, the caller whose access is checked " +
			"(Kuma: its tags, e.g. --from kuma.io/service=web_shop_svc_80,app=web, or its SPIFFE ID, e.g. --from spiffe://default/web; " +
			"Linkerd: its ServiceAccount, e.g. --from shop/gateway, or --from-ip 10.0.0.7 for an unauthenticated client)")
	}
	switch o.meshType {
	case "auto":
		o.meshType = inferMeshType(o.from, o.fromIP)
		if o.meshType == "" {
			return usageErr("cannot tell the mesh from --from %q: unknown identity syntax (Kuma: k=v,... or spiffe://...; Linkerd: namespace/name, name.namespace.serviceaccount.identity.linkerd.<domain>, or --from-ip); or give --mesh-type", o.from)
		}
	case "kuma", "linkerd":
	default:
		return usageErr("--mesh-type must be auto, kuma or linkerd (got %q)", o.meshType)
	}
	if o.meshType == "kuma" && o.fromIP != "" {
		return usageErr("--from-ip is for Linkerd; a Kuma client is its certificate (--from)")
	}
	if o.meshType == "linkerd" && (o.sni != "" || o.section != "" || o.fromMesh != "" || o.toMesh != "") {
		return usageErr("--sni, --section, --from-mesh and --to-mesh are for Kuma")
	}
	return nil
}

// inferMeshType tells Kuma from Linkerd by the client's syntax; "" when neither.
func inferMeshType(from, ip string) string {
	switch {
	case strings.HasPrefix(from, "spiffe://") || strings.Contains(from, "="):
		return "kuma"
	case from == "" && ip != "",
		strings.Contains(from, ".serviceaccount.identity.linkerd."),
		strings.Count(from, "/") == 1 && !strings.Contains(from, ":"):
		return "linkerd"
	}
	return ""
}

func (o *checkOptions) run(s streams, args []string) error {
	if err := o.detect(s); err != nil {
		return err
	}
	eng, err := o.engine()
	if err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	defer tuneGCForLint()() // reading thousands of documents is lint's workload
	loaded, err := o.documents(s, args)
	if err != nil {
		return err
	}
	if err := lint.WriteNotes(s.err, loaded.Skipped); err != nil {
		return err
	}
	if notes := lint.ParseNotes(loaded.Docs); len(notes) > 0 {
		printNotes(s, notes)
		return usageErr("the input has documents that cannot be read (see above): a policy check cannot read could be the one that decides")
	}
	var res access.Answer
	if o.meshType == "kuma" {
		res, err = o.checkKuma(s, loaded.Docs, eng)
	} else {
		res, err = o.checkLinkerd(s, loaded.Docs, eng)
	}
	if err != nil {
		return err
	}
	if err := writeCheck(s.out, o.output, res); err != nil {
		return err
	}
	if res.Decision != "ALLOW" {
		return exitError{exitFindings}
	}
	return nil
}

// objectsOf are the parsed objects of docs, namespaced ones without a namespace
// given o.namespace as on apply.
func (o *checkOptions) objectsOf(docs []lint.Document) []*unstructured.Unstructured {
	return objectsOf(docs, o.namespace)
}

// objectsOf are the parsed objects of docs, namespaced ones without a namespace
// given ns as on apply (check and map read them alike).
func objectsOf(docs []lint.Document, ns string) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, len(docs))
	for i := range docs {
		obj := docs[i].Object
		if obj == nil {
			continue
		}
		if obj.GetNamespace() == "" && obj.GetKind() != api.KindNamespace && obj.GetKind() != api.KindMesh {
			obj = obj.DeepCopy()
			obj.SetNamespace(ns)
		}
		out = append(out, obj)
	}
	return out
}

// locator finds where objects were read from: kind, namespace and name to the
// document.
type locator map[string]*lint.Document

func newLocator(docs []lint.Document, defaultNS string) locator {
	l := locator{}
	for i := range docs {
		d := &docs[i]
		if d.Object == nil {
			continue
		}
		ns := d.Object.GetNamespace()
		if k := d.Object.GetKind(); ns == "" && k != api.KindNamespace && k != api.KindMesh {
			ns = defaultNS
		}
		key := d.Object.GetKind() + "/" + ns + "/" + d.Object.GetName()
		if _, seen := l[key]; !seen {
			l[key] = d
		}
	}
	return l
}

// at is "file:line" of kind ns/name's field path, or "" when not from a file.
func (l locator) at(kind, ns, name, path string) (string, int) {
	d := l[kind+"/"+ns+"/"+name]
	if d == nil {
		return "", 0
	}
	file, line := d.Locate(path)
	if strings.HasPrefix(file, clusterSource) {
		return file, 0 // read from a cluster: there is no line to point to
	}
	return file, line
}

// clusterSource starts the File of documents read from a cluster (the live
// reader's "cluster:<namespace>/<Kind>/<name>").
const clusterSource = "cluster:"

// portString is the port flag as a number, or 0 and the name.
func portString(p string) (int64, string) {
	if n, err := strconv.ParseInt(p, 10, 64); err == nil {
		return n, ""
	}
	return 0, p
}

// readable prints the notes of the input read (objects the webhook would deny
// never reach a proxy: they are left out, and said so on standard error, as
// preview does) and fails when some document cannot be parsed.
func readable(s streams, in lint.CheckInput) error {
	printNotes(s, in.Notes)
	printNotes(s, in.LinkerdNotes)
	if in.Unreadable {
		return usageErr("the input has documents that cannot be read (see above)")
	}
	return nil
}

// checkLinkerd answers a Linkerd call.
func (o *checkOptions) checkLinkerd(s streams, docs []lint.Document, eng lint.Options) (access.Answer, error) {
	in := lint.LinkerdCheckInput(docs, eng)
	if err := readable(s, in); err != nil {
		return access.Answer{}, err
	}
	c, err := linkerdauthz.ParseCaller(o.from, o.fromIP, o.linkerd.TrustDomain)
	if err != nil {
		return access.Answer{}, err
	}
	dst := linkerdauthz.Destination{Namespace: o.toNS}
	dst.Port, dst.PortName = portString(o.port)
	if strings.Contains(o.to, "=") {
		if dst.Labels, err = kumaauthz.ParseTags(o.to); err != nil {
			return access.Answer{}, usageErr("--to: %v", err)
		}
	} else {
		dst.Workload = o.to
		if !strings.Contains(o.to, "/") {
			dst.Workload = "Deployment/" + o.to
		}
	}
	d, err := linkerdauthz.Decide(in.Linkerd, c, dst, linkerdauthz.Request{Method: o.method, Path: o.path}, o.linkerd)
	if err != nil {
		return access.Answer{}, err
	}
	return d.Answer(c, dst, o.port, access.Request{Method: o.method, Path: o.path}, newLocator(docs, o.namespace).at), nil
}

// checkKuma answers a Kuma call.
func (o *checkOptions) checkKuma(s streams, docs []lint.Document, eng lint.Options) (access.Answer, error) {
	objs := o.objectsOf(docs)
	var px kumaauthz.Proxy
	if strings.Contains(o.to, "=") {
		tags, err := kumaauthz.ParseTags(o.to)
		if err != nil {
			return access.Answer{}, usageErr("--to: %v", err)
		}
		px = kumaauthz.Proxy{Mesh: o.toMesh, Namespace: o.toNS, Zone: o.settings.Zone, Section: o.section, Tags: tags}
		if px.Mesh == "" {
			px.Mesh = orDefault(tags[api.LabelMesh], o.settings.DefaultMesh)
		}
	} else {
		var err error
		px, err = kumaauthz.ProxyFromObjects(objs, kumaauthz.ProxyQuery{Name: o.to, Namespace: o.toNS, Port: o.port, Section: o.section,
			Mesh: o.toMesh, DefaultMesh: o.settings.DefaultMesh, Zone: o.settings.Zone})
		if err != nil {
			return access.Answer{}, err
		}
	}
	clientMesh := o.fromMesh
	if clientMesh == "" {
		clientMesh = px.Mesh
	}
	cl, err := kumaauthz.ParseClient(o.from, clientMesh)
	if err != nil {
		return access.Answer{}, err
	}
	var serviceTargets atomic.Bool // some policy of the mesh targets a MeshService (keep runs in parallel)
	in := lint.KumaCheckInput(docs, eng, func(p kumaauthz.Policy) bool {
		if k := p.TopRef().Kind; p.Mesh == px.Mesh && (k == api.RefMeshService || k == api.RefMeshServiceSubset) {
			serviceTargets.Store(true)
		}
		return kumaauthz.Relevant(p, px, o.settings.SystemNamespace)
	})
	if err := readable(s, in); err != nil {
		return access.Answer{}, err
	}
	ck := kumaauthz.Checker{Policies: in.Policies, Identities: in.Identities, SystemNamespace: o.settings.SystemNamespace,
		Form: kumaauthz.Form(o.form), ServiceTargets: func(string) bool { return serviceTargets.Load() }}
	workload := ""
	if !strings.Contains(o.to, "=") {
		workload = o.to
	}
	req := access.Request{SNI: o.sni, Method: o.method, Path: o.path}
	return ck.Answer(px, ck.Select(px), workload, cl, req, newLocator(docs, o.namespace).at)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
