package kumainspect

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// apiCases holds Kuma 2.14.3's own API-server inspect cases (see testdata/NOTICE.md):
// the request, the objects of Kuma's store and the body Kuma answered.
const apiCases = "testdata/kuma-inspect-2.14/api"

// conformanceDoc lists the cases meshguard answers differently, each with its
// reason, between the kuma-inspect-api markers.
const conformanceDoc = "../docs/conformance.md"

var kumaSchemas = sync.OnceValues(func() (*schema.Set, error) { return schema.Load(schema.KumaRelease("2.14")) })

// apiCase is one case: the GET path, Kuma's status, the objects and Kuma's body.
type apiCase struct {
	name, path string
	status     int
	input      []byte
	golden     []byte
}

func readCases(t *testing.T) []apiCase {
	t.Helper()
	var out []apiCase
	err := filepath.WalkDir(apiCases, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".input.yaml") {
			return err
		}
		in, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		golden, err := os.ReadFile(strings.TrimSuffix(p, ".input.yaml") + ".golden.json")
		if err != nil {
			return err
		}
		// The case's line is the first that starts with "#/": some of Kuma's
		// inputs open with comments on the case.
		var first []byte
		for rest := in; len(rest) > 0 && first == nil; {
			var line []byte
			line, rest, _ = bytes.Cut(rest, []byte("\n"))
			if bytes.HasPrefix(line, []byte("#/")) {
				first = line
			}
		}
		fields := strings.Fields(strings.TrimPrefix(string(first), "#"))
		if len(fields) != 2 {
			t.Fatalf("%s: first line %q is not #<path> <status>", p, first)
		}
		status, err := strconv.Atoi(fields[1])
		if err != nil {
			t.Fatalf("%s: status %q: %v", p, fields[1], err)
		}
		rel, _ := filepath.Rel(apiCases, strings.TrimSuffix(p, ".input.yaml"))
		out = append(out, apiCase{name: filepath.ToSlash(rel), path: fields[0], status: status, input: in, golden: golden})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// answer runs one case through Decode, NewStore and Get, as a global control
// plane for the cases under a global/ folder (Kuma runs those against its
// global API server), as a zone one otherwise.
func answer(t *testing.T, c apiCase) Response {
	t.Helper()
	reg := api.DefaultRegistry()
	objs, err := Decode(bytes.NewReader(c.input), c.name, reg)
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := kumaSchemas()
	if err != nil {
		t.Fatal(err)
	}
	store, err := NewStore(objs, reg, schemas)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	store.SetGlobal(slices.Contains(strings.Split(c.name, "/"), "global"))
	return store.Get(c.path)
}

// canonical is a JSON value re-encoded with sorted keys, so bodies compare as JSON.
func canonical(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%v in %s", err, raw)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// differences are the cases docs/conformance.md lists as answered differently.
func differences(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(conformanceDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok1 := strings.Cut(string(raw), "<!-- kuma-inspect-api:begin -->")
	body, _, ok2 := strings.Cut(rest, "<!-- kuma-inspect-api:end -->")
	if !ok1 || !ok2 {
		t.Fatalf("%s has no kuma-inspect-api markers", conformanceDoc)
	}
	out := map[string]string{}
	for _, line := range strings.Split(body, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		c := strings.Trim(strings.TrimSpace(cells[1]), "`")
		if c == "case" || strings.HasPrefix(c, "---") {
			continue
		}
		if strings.TrimSpace(cells[2]) == "" {
			t.Errorf("%s: the row of %s gives no reason", conformanceDoc, c)
		}
		out[c] = strings.TrimSpace(cells[2])
	}
	return out
}

// TestKumaInspectAPIConformance runs every case of Kuma's API-server inspect tests
// and compares status and body (as JSON) with Kuma's. The cases that differ must
// be exactly those docs/conformance.md lists, and at least 95% must agree.
func TestKumaInspectAPIConformance(t *testing.T) {
	cases := readCases(t)
	listed := differences(t)
	agree := 0
	var differ []string
	for _, c := range cases {
		r := answer(t, c)
		body, err := json.Marshal(r.Body)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, want := canonical(t, body), canonical(t, c.golden)
		if r.Status == c.status && got == want {
			agree++
			if _, ok := listed[c.name]; ok {
				t.Errorf("%s now agrees with Kuma: remove it from %s", c.name, conformanceDoc)
			}
			continue
		}
		differ = append(differ, c.name)
		if _, ok := listed[c.name]; !ok {
			t.Errorf("%s differs from Kuma (GET %s)\n got: %d %s\nwant: %d %s", c.name, c.path, r.Status, got, c.status, want)
		}
	}
	for name := range listed {
		if !contains(differ, name) && !hasCase(cases, name) {
			t.Errorf("%s lists %s, which is not a case", conformanceDoc, name)
		}
	}
	sort.Strings(differ)
	t.Logf("kuma-inspect-2.14/api: %d/%d cases agree with Kuma 2.14.3 (%.1f%%); differ: %v",
		agree, len(cases), 100*float64(agree)/float64(len(cases)), differ)
	if agree*100 < 95*len(cases) {
		t.Errorf("agreement %d/%d is below 95%%", agree, len(cases))
	}
}

func contains(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}

func hasCase(cases []apiCase, name string) bool {
	for _, c := range cases {
		if c.name == name {
			return true
		}
	}
	return false
}
