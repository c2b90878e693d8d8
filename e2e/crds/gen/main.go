// Command gen writes the test CRDs of every kind meshguard guards:
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
	if err := crds.WriteYAML(&buf, crds.CRDs(api.DefaultRegistry())); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var err error
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
