// Command kumapeer is the peer of `meshguard inspect` in hack/bench's inspect
// measurement: Kuma 2.14.3's own rules code (matchers.MatchedPolicies, which
// builds the from, to, resource, gateway and single-item rules) run over the same
// generated Universal input, for every Dataplane and every policy kind the input
// holds, with the CPU time (user + system, from getrusage) of reading the input and
// of matching measured apart.
//
// It is its own module so that meshguard's go.mod never depends on Kuma: its
// go.mod points replace directives at snapshots of kumahq/kuma v2.14.3 and of
// kumahq/go-control-plane (Kuma's Envoy fork, which is not on the module proxy),
// which `go run ./hack/bench inspect --peer` unpacks under .cache/kumapeer/.
//
//	go run . [-max N] FILE
//
// -max N matches only the first N Dataplanes (in input order); the CPU per proxy is
// reported either way. Exit codes: 0 measured, 1 the input or Kuma failed, 2 usage.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"syscall"
	"time"

	"github.com/kumahq/kuma/v2/pkg/core/plugins"
	core_apis "github.com/kumahq/kuma/v2/pkg/core/resources/apis"
	core_mesh "github.com/kumahq/kuma/v2/pkg/core/resources/apis/mesh"
	core_model "github.com/kumahq/kuma/v2/pkg/core/resources/model"
	"github.com/kumahq/kuma/v2/pkg/core/resources/model/rest"
	"github.com/kumahq/kuma/v2/pkg/plugins/policies"
	"github.com/kumahq/kuma/v2/pkg/plugins/policies/core/matchers"
	util_yaml "github.com/kumahq/kuma/v2/pkg/util/yaml"
	xds_context "github.com/kumahq/kuma/v2/pkg/xds/context"
)

func main() {
	maxDPs := flag.Int("max", 0, "match only the first N Dataplanes (0: all)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: kumapeer [-max N] FILE")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *maxDPs); err != nil {
		fmt.Fprintln(os.Stderr, "kumapeer:", err)
		os.Exit(1)
	}
}

// cpu is the process's user + system CPU time so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func run(file string, maxDPs int) error {
	start := cpu()
	// Register the resource types (MeshService, ...) and policy types as Kuma's
	// control plane does at start-up.
	plugins.InitAll(core_apis.NameToModule)
	plugins.InitAll(policies.NameToModule)
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	resources := xds_context.NewResources()
	var dps []*core_mesh.DataplaneResource
	policyTypes := map[core_model.ResourceType]bool{}
	for i, doc := range util_yaml.SplitYAML(string(raw)) {
		r, err := rest.YAML.UnmarshalCore([]byte(doc))
		if err != nil {
			return fmt.Errorf("document %d: %w", i+1, err)
		}
		d := r.Descriptor()
		list, ok := resources.MeshLocalResources[d.Name]
		if !ok {
			list = d.NewList()
			resources.MeshLocalResources[d.Name] = list
		}
		if err := list.AddItem(r); err != nil {
			return err
		}
		if dp, ok := r.(*core_mesh.DataplaneResource); ok {
			dps = append(dps, dp)
		}
		if d.IsPolicy && d.IsTargetRefBased {
			policyTypes[d.Name] = true
		}
	}
	types := make([]core_model.ResourceType, 0, len(policyTypes))
	for t := range policyTypes {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool { return types[i] < types[j] })
	read := cpu() - start
	if maxDPs > 0 && maxDPs < len(dps) {
		dps = dps[:maxDPs]
	}
	start = cpu()
	wall := time.Now()
	warnings := 0
	for _, dp := range dps {
		for _, t := range types {
			m, err := matchers.MatchedPolicies(t, dp, resources)
			if err != nil {
				return fmt.Errorf("%s %s: %w", t, dp.GetMeta().GetName(), err)
			}
			warnings += len(m.Warnings)
		}
	}
	match := cpu() - start
	per := time.Duration(0)
	if len(dps) > 0 {
		per = match / time.Duration(len(dps))
	}
	fmt.Printf("kuma 2.14.3 MatchedPolicies: %d Dataplanes x %d policy kinds: read %.2f s CPU, match %.2f s CPU (%.2f s wall), %.2f ms CPU per proxy, %d warnings\n",
		len(dps), len(types), read.Seconds(), match.Seconds(), time.Since(wall).Seconds(), float64(per.Microseconds())/1000, warnings)
	return nil
}
