package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumainspect"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/schema"
)

// inspectOptions are the flags of `meshguard inspect`.
type inspectOptions struct {
	kumaAPI   string
	dataplane string
	mesh      string
	output    string
	// mode is the control plane whose answers --kuma-api gives.
	mode  string
	input inspectInput
	// meshSet: --mesh was given, so every-proxy output keeps to that mesh.
	meshSet bool
}

func newInspectCmd(s streams) *cobra.Command {
	o := &inspectOptions{}
	cmd := &cobra.Command{
		Use:   "inspect [--kuma-api PATH | --dataplane NAME | --proxy KIND/NAME] [PATH|-]... | --kubeconfig FILE",
		Short: "Show what Kuma's control plane makes of the policies: per proxy, inbound and outbound",
		Long: `Inspect answers, offline, what Kuma 2.14's control plane computes from a set of
objects: which policies select a proxy and the conf each inbound, outbound and the
proxy as a whole gets after they are merged, with the policies it came from.

The objects are read from files, directories (their .yaml, .yml and .json files) and
- for standard input, in Kuma's Universal format (type:, name:, mesh:, as 'kumactl
apply' takes them) or as Kubernetes manifests; each new-style resource gets its
CRD's defaults, as Kuma's store gives them. Kustomizations and Helm charts are
rendered as lint renders them (--no-kustomize, --no-helm, the Helm flags);
--inventory adds more objects; --kubeconfig reads a cluster instead (read-only
lists, as check --kubeconfig).

Proxies come from Dataplanes and, as Kuma's Kubernetes control plane derives
them, from workloads: one proxy per Deployment, StatefulSet, DaemonSet,
ReplicaSet and Pod whose pods Kuma injects (kuma.io/sidecar-injection: enabled on
the Namespace or the pod template), its Dataplane named after the workload, with
one inbound per port of every Service that selects it; builtin gateway proxies
from MeshGatewayInstances; MeshServices from Services (meshServices.mode not
Disabled). A Dataplane or MeshService in the input wins over a derived one.

  --kuma-api PATH    print the JSON body Kuma's API server answers for GET PATH
                     (/meshes/{mesh}/dataplanes/{name}/_rules, …/_policies,
                     …/_inbounds/{kri}/_policies, …/_outbounds/{kri}/_policies,
                     …/_outbounds/{kri}/_routes and its /{kri}/_policies,
                     …/_layout, …/_config,
                     /meshes/{mesh}/meshgateways/{name}/_rules,
                     /meshes/{mesh}/{policies}/{name}/_resources/dataplanes,
                     /meshes/{mesh}/meshservices/{name}/_dataplanes,
                     /meshes/{mesh}/{meshservices|meshexternalservices|
                     meshmultizoneservices}/{name}/_hostnames); exit 0 when
                     Kuma answers 200, 1 otherwise with Kuma's error body on
                     standard output. --mode global answers as a global
                     control plane (only _hostnames differs).
  --dataplane NAME   show one proxy (of --mesh): the single-item policies, then
                     every inbound and every outbound it can reach (and a builtin
                     gateway's listeners), each kind's merged conf field by field
                     with the policy item that sets it and those it overrides.
                     -o json writes Kuma's _policies shapes.
  --proxy KIND/NAME  the same for a proxy named by its workload, of -n:
                     Deployment/web, Pod/web-7d9, MeshGatewayInstance/edge,
                     MeshGateway/edge, Dataplane/web-1; a name that is not
                     there lists the proxies that are.
  (none of them)     show every proxy of the input (of --mesh when given), one
                     block each as --dataplane prints it; -o json writes a list,
                     each entry {"dataplane": {mesh, name, kri}} and the fields
                     of --dataplane -o json.

See docs/inspect.md. Exit codes: 0 answered (--kuma-api: Kuma answers 200), 1 Kuma
answers an error, 2 usage or input errors.`,
		Example: `  meshguard inspect examples/inspect/shop
  meshguard inspect --dataplane web-1 examples/inspect/shop
  meshguard inspect --proxy Deployment/web -n shop examples/inspect/k8s-shop
  meshguard inspect --proxy Deployment/web -n shop examples/inspect/k8s-shop/mesh.yaml examples/inspect/k8s-shop-kustomized
  meshguard inspect --kuma-api /meshes/default/dataplanes/web-1/_rules examples/inspect/shop
  meshguard inspect --kuma-api /meshes/default/dataplanes/web-1/_outbounds/kri_msvc_default___backend_http/_policies examples/inspect/shop
  kumactl export -p all -f universal | meshguard inspect --dataplane web-1 --mesh default -o json -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.meshSet = cmd.Flags().Changed("mesh")
			return o.run(s, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.kumaAPI, "kuma-api", "", "a GET path of Kuma's API server to answer, e.g. /meshes/default/dataplanes/dp-1/_policies")
	f.StringVar(&o.dataplane, "dataplane", "", "the Dataplane to show, by name")
	f.StringVar(&o.mode, "mode", string(api.ModeStandalone), "the control plane --kuma-api answers as: standalone, zone or global")
	f.StringVar(&o.mesh, "mesh", api.DefaultMeshName, "the mesh of --dataplane; without --dataplane, show only this mesh's proxies (default every mesh's)")
	bindOutput(cmd, &o.output, formatText, formatJSON)
	o.input.bind(cmd)
	return cmd
}

func (o *inspectOptions) run(s streams, args []string) error {
	if given := btoi(o.kumaAPI != "") + btoi(o.dataplane != "") + btoi(o.input.proxy != ""); given > 1 {
		return usageErr("give at most one of --kuma-api PATH, --dataplane NAME or --proxy KIND/NAME")
	}
	if err := checkOutput(o.output, []format{formatText, formatJSON}); err != nil {
		return err
	}
	switch api.Mode(o.mode) {
	case api.ModeStandalone, api.ModeZone, api.ModeGlobal:
	default:
		return usageErr("--mode must be one of standalone, zone, global (got %q)", o.mode)
	}
	store, derived, err := o.input.read(s, args)
	if err != nil {
		return err
	}
	store.SetGlobal(api.Mode(o.mode) == api.ModeGlobal)
	if o.kumaAPI != "" {
		return answerKumaAPI(s, store, o.kumaAPI)
	}
	if o.dataplane == "" && o.input.proxy == "" {
		return o.writeEveryView(s, store)
	}
	mesh, dataplane := o.mesh, o.dataplane
	if o.input.proxy != "" {
		if mesh, dataplane, err = o.input.chooseProxy(store, derived); err != nil {
			return err
		}
	}
	view, err := store.View(mesh, dataplane)
	if err != nil {
		return usageErr("%v", err)
	}
	if o.output == string(formatJSON) {
		return writeJSON(s, view.KumaJSON())
	}
	return view.WriteText(s.out)
}

// answerKumaAPI prints Kuma's body for GET path; a status other than 200 is exit 1.
func answerKumaAPI(s streams, store *kumainspect.Store, path string) error {
	r := store.Get(path)
	body, err := r.JSON()
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(s.out, "%s\n", body); err != nil {
		return err
	}
	if r.Status != 200 {
		fmt.Fprintf(s.err, "meshguard inspect: Kuma answers GET %s with %d\n", path, r.Status)
		return exitError{exitFindings}
	}
	return nil
}

// writeEveryView writes the view of every proxy (of --mesh when given), one at a
// time: text blocks separated by a blank line, or one JSON list.
func (o *inspectOptions) writeEveryView(s streams, store *kumainspect.Store) error {
	mesh := ""
	if o.meshSet {
		mesh = o.mesh
	}
	first := true
	jsonOut := o.output == string(formatJSON)
	err := store.EachView(mesh, func(v kumainspect.View) error {
		sep := "\n"
		if jsonOut {
			sep = ",\n  "
			if first {
				sep = "[\n  "
			}
			out, err := json.MarshalIndent(v.DataplaneJSON(), "  ", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(s.out, "%s%s", sep, out)
			first = false
			return err
		}
		if !first {
			if _, err := fmt.Fprint(s.out, sep); err != nil {
				return err
			}
		}
		first = false
		return v.WriteText(s.out)
	})
	if err != nil {
		return usageErr("%v", err)
	}
	if !jsonOut {
		return nil
	}
	end := "\n]\n"
	if first {
		end = "[]\n"
	}
	_, err = fmt.Fprint(s.out, end)
	return err
}

func writeJSON(s streams, v any) error {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(s.out, "%s\n", out)
	return err
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// newInspectStore reads objs into a store with Kuma 2.14's CRD defaults.
func newInspectStore(objs []kumainspect.Object) (*kumainspect.Store, error) {
	reg := api.DefaultRegistry()
	schemas, err := schema.Load()
	if err != nil {
		return nil, err
	}
	if err := schemas.Defer(schema.KumaRelease(schema.DefaultKumaVersion), api.KumaGroup); err != nil {
		return nil, err
	}
	store, err := kumainspect.NewStore(objs, reg, schemas)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return store, nil
}

// decodeFile reads the documents of one file (standard input for lint.StdinName).
func decodeFile(s streams, file string, reg *api.Registry) ([]kumainspect.Object, error) {
	if file == lint.StdinName {
		return kumainspect.Decode(s.in, file, reg)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return kumainspect.Decode(f, file, reg)
}

// inspectFiles are the files an argument names: itself, the YAML and JSON files
// under a directory (in name order), or standard input for -.
func inspectFiles(arg string) ([]string, error) {
	if arg == "-" {
		return []string{lint.StdinName}, nil
	}
	st, err := os.Stat(arg)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{arg}, nil
	}
	var out []string
	err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml", ".json":
			if !d.IsDir() {
				out = append(out, p)
			}
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}
