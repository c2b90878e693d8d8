// Command crdcheck reports which manifests of a directory a mesh release's embedded CRDs
// refuse, as the API server would on create. hack/kuma-manifests/extract.py and
// hack/linkerd-manifests/extract.py run it to keep only manifests that are valid for
// the release: it prints a JSON object, file name → the API server's errors, for the
// refused files only.
//
//	go run ./hack/crdcheck -release kuma-2.14 DIR
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/schema"
)

func main() {
	release := flag.String("release", "", "the embedded CRD releases to check against, comma-separated (kuma-2.14; linkerd-edge-26.8.3,gateway-api-v1.1.1 for Linkerd's chart with the Gateway API routes it bundles)")
	flag.Parse()
	if *release == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: crdcheck -release RELEASE DIR")
		os.Exit(2)
	}
	refused, err := check(*release, flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, _ := json.MarshalIndent(refused, "", "  ")
	fmt.Println(string(out))
}

// check returns, for each *.yaml file of dir (one object each) that the CRDs refuse,
// the API server's errors; a kind with no CRD is refused too.
func check(release, dir string) (map[string]string, error) {
	set, err := schema.Load(strings.Split(release, ",")...)
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	refused := map[string]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var obj map[string]any
		if err := yaml.Unmarshal(raw, &obj); err != nil {
			refused[filepath.Base(f)] = "not YAML: " + err.Error()
			continue
		}
		res, ok := set.Check(context.Background(), &unstructured.Unstructured{Object: obj})
		if !ok {
			refused[filepath.Base(f)] = "no CRD for this kind and version"
			continue
		}
		if len(res.Errors) > 0 {
			var msgs []string
			for _, e := range res.Errors {
				msgs = append(msgs, e.Error())
			}
			sort.Strings(msgs)
			refused[filepath.Base(f)] = strings.Join(msgs, "; ")
		}
	}
	return refused, nil
}
