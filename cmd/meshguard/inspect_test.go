package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inspectCases are Kuma's API-server inspect cases, as kumainspect's test holds them.
const inspectCases = "../../kumainspect/testdata/kuma-inspect-2.14/api/dataplanes"

func runInspect(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"inspect"}, args...), streams{in: strings.NewReader(stdin), out: &out, err: &errOut})
	return out.String(), errOut.String(), code
}

func canonicalJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%v in %s", err, raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestInspectKumaAPIAnswersAsKuma runs the command on Kuma's own cases: the body
// Kuma answers on standard output, exit 0 for 200 and 1 for an error answer.
func TestInspectKumaAPIAnswersAsKuma(t *testing.T) {
	for _, c := range []struct {
		file, path string
		code       int
	}{
		{"_policies/merged_policies", "/meshes/default/dataplanes/dp-1/_policies", exitOK},
		{"_rules/overriding_meshtimeout", "/meshes/default/dataplanes/dp-1/_rules", exitOK},
		{"_rules/dp_not_found", "/meshes/default/dataplanes/dp-1/_rules", exitFindings},
		{"_policies/inbounds/invalid_inbound_kri", "/meshes/default/dataplanes/dp-1/_inbounds/invalid-kri/_policies", exitFindings},
	} {
		t.Run(c.file, func(t *testing.T) {
			input := filepath.Join(inspectCases, c.file+".input.yaml")
			golden, err := os.ReadFile(filepath.Join(inspectCases, c.file+".golden.json"))
			if err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runInspect(t, "", "--kuma-api", c.path, input)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, c.code, errOut)
			}
			if got, want := canonicalJSON(t, []byte(out)), canonicalJSON(t, golden); got != want {
				t.Errorf("body\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

// TestInspectKumaAPIHostnamesByMode: _hostnames answers as a zone control plane
// by default and as a global one with --mode global, as Kuma's two test suites
// hold them; the same case differs between the two.
func TestInspectKumaAPIHostnamesByMode(t *testing.T) {
	const cases = "../../kumainspect/testdata/kuma-inspect-2.14/api/services/_hostnames"
	path := "/meshes/default/meshservices/test-server-syncedhash/_hostnames"
	for _, c := range []struct {
		file string
		args []string
	}{
		{"zone/meshservice_hostnames_zone_synced", nil},
		{"global/meshservice_hostnames_zone_synced", []string{"--mode", "global"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			golden, err := os.ReadFile(filepath.Join(cases, c.file+".golden.json"))
			if err != nil {
				t.Fatal(err)
			}
			args := append(append([]string{"--kuma-api", path}, c.args...), filepath.Join(cases, c.file+".input.yaml"))
			out, errOut, code := runInspect(t, "", args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if got, want := canonicalJSON(t, []byte(out)), canonicalJSON(t, golden); got != want {
				t.Errorf("body\n got: %s\nwant: %s", got, want)
			}
		})
	}
	if _, errOut, code := runInspect(t, "", "--kuma-api", path, "--mode", "federated", "-"); code != exitUsage || !strings.Contains(errOut, "--mode must be one of") {
		t.Errorf("--mode federated: exit %d, stderr %s", code, errOut)
	}
}

func TestInspectReadsStandardInput(t *testing.T) {
	in, err := os.ReadFile(filepath.Join(inspectCases, "_policies/single_proxy_policy.input.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runInspect(t, string(in), "--kuma-api", "/meshes/default/dataplanes/dp-1/_policies", "-")
	if code != exitOK || !strings.Contains(out, `"kri": "kri_mtr_default___default_"`) {
		t.Errorf("exit %d, stdout %s, stderr %s", code, out, errOut)
	}
}

// TestInspectDataplaneShowsWhereEachFieldComesFrom runs the human view on the
// example mesh, in text and in Kuma's JSON shapes.
func TestInspectDataplaneShowsWhereEachFieldComesFrom(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "inspect", "shop")
	out, errOut, code := runInspect(t, "", "--dataplane", "web-1", example)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"outbound kri_msvc_default___backend_http port 80 http",
		"http.requestTimeout: 2s  ← web-to-backend spec.to[0], over mesh-defaults spec.to[0]",
		"http.numRetries: 3  ← retry-backend spec.to[0]",
		"1. ← inbound-defaults spec.rules[0]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	out, errOut, code = runInspect(t, "", "--dataplane", "web-1", "-o", "json", example)
	var v struct {
		Outbounds []struct {
			KRI      string `json:"kri"`
			Policies []struct {
				Kind string `json:"kind"`
			} `json:"policies"`
		} `json:"outbounds"`
	}
	if err := json.Unmarshal([]byte(out), &v); code != exitOK || err != nil || len(v.Outbounds) != 2 || len(v.Outbounds[0].Policies) != 2 {
		t.Errorf("-o json: exit %d, %v, %+v; stderr %s", code, err, v, errOut)
	}
}

// TestInspectEveryProxy: without --dataplane, inspect shows every proxy as
// --dataplane shows each (text blocks in name order, blank-line separated; a JSON
// list whose entries name their proxy), and --mesh narrows to one mesh.
func TestInspectEveryProxy(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "inspect", "shop")
	var blocks []string
	for _, dp := range []string{"backend-1", "web-1"} {
		out, errOut, code := runInspect(t, "", "--dataplane", dp, example)
		if code != exitOK {
			t.Fatalf("--dataplane %s: exit %d: %s", dp, code, errOut)
		}
		blocks = append(blocks, out)
	}
	for _, args := range [][]string{{example}, {"--mesh", "default", example}} {
		out, errOut, code := runInspect(t, "", args...)
		if code != exitOK || out != strings.Join(blocks, "\n") {
			t.Errorf("%v: exit %d (%s), text\n%s\nwant\n%s", args, code, errOut, out, strings.Join(blocks, "\n"))
		}
	}
	out, errOut, code := runInspect(t, "", "-o", "json", example)
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); code != exitOK || err != nil || len(list) != 2 {
		t.Fatalf("-o json: exit %d, %v, %d entries; stderr %s", code, err, len(list), errOut)
	}
	for i, dp := range []string{"backend-1", "web-1"} {
		one, _, _ := runInspect(t, "", "--dataplane", dp, "-o", "json", example)
		var want map[string]any
		if err := json.Unmarshal([]byte(one), &want); err != nil {
			t.Fatal(err)
		}
		want["dataplane"] = map[string]any{"mesh": "default", "name": dp, "kri": want["kri"]}
		got, _ := json.Marshal(list[i])
		if w, _ := json.Marshal(want); string(got) != string(w) {
			t.Errorf("entry %d\n got: %s\nwant: %s", i, got, w)
		}
	}
	if out, _, code := runInspect(t, "", "-o", "json", "--mesh", "default", "-", ""); code != exitUsage {
		t.Errorf("--mesh of an empty input: exit %d, want %d (%s)", code, exitUsage, out)
	}
}

func TestInspectUsageErrors(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "inspect", "shop")
	for name, args := range map[string][]string{
		"no such mesh":  {"--mesh", "nope", example},
		"both":          {"--kuma-api", "/x", "--dataplane", "web-1", example},
		"no path":       {"--dataplane", "web-1"},
		"missing path":  {"--dataplane", "web-1", "no-such-dir"},
		"bad output":    {"--dataplane", "web-1", "-o", "sarif", example},
		"no such proxy": {"--dataplane", "nope", example},
	} {
		if _, errOut, code := runInspect(t, "", args...); code != exitUsage || errOut == "" {
			t.Errorf("%s: exit %d (stderr %q), want %d with a message", name, code, errOut, exitUsage)
		}
	}
}

// TestInspectHelpExamplesRun runs every `meshguard inspect` example of the help
// (those that read the repository's files) and expects exit 0.
func TestInspectHelpExamplesRun(t *testing.T) {
	n := 0
	for _, line := range strings.Split(newInspectCmd(streams{}).Example, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 3 || fields[0] != "meshguard" || fields[1] != "inspect" {
			continue
		}
		args := fields[2:]
		for i, a := range args {
			if strings.HasPrefix(a, "examples/") {
				args[i] = filepath.Join("..", "..", a)
			}
		}
		if _, errOut, code := runInspect(t, "", args...); code != exitOK {
			t.Errorf("%s: exit %d: %s", line, code, errOut)
		}
		n++
	}
	if n < 3 {
		t.Fatalf("only %d runnable examples in inspect's help", n)
	}
}
