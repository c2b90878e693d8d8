// Command gen writes the CRDs the e2e suite installs (crds.Installed: Kuma's own,
// and generated ones for the other kinds meshguard guards):
//
//	go run ./e2e/crds/gen -o e2e/testdata/crds.yaml
//
// The file is committed so the e2e suite and `make demo` can `kubectl apply` it
// without building anything; a test in e2e/crds fails when it is stale.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/e2e/crds"
)

func main() {
	out := flag.String("o", "-", "output file (- for standard output)")
	flag.Parse()
	var buf bytes.Buffer
	installed, err := crds.Installed(api.DefaultRegistry())
	if err == nil {
		err = crds.WriteYAML(&buf, installed)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *out == "-" {
		_, err = os.Stdout.Write(buf.Bytes())
	} else {
		err = os.WriteFile(*out, buf.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
