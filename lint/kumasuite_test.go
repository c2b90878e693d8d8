package lint

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// kumaSuite is Kuma 2.14.3's own validator test tables as manifests (see its README).
const kumaSuite = "../validate/testdata/conformance/kuma-validators-2.14"

// conformanceDoc lists, between the markers below, every case of the suite where
// meshguard's answer differs from Kuma's, with the reason.
const conformanceDoc = "../docs/conformance.md"

var suiteKind = flag.String("suite-kind", "", "TestKumaValidatorSuite: print only the differences of this kind")

// suiteCase is one entry of cases.json.
type suiteCase struct {
	File        string   `json:"file"`
	Kind        string   `json:"kind"`
	Description string   `json:"description"`
	Expect      string   `json:"expect"`
	Fields      []string `json:"fields"`
}

// kumaValidatorSuites are the validator suites of each embedded Kuma release: the
// suite's directory and the docs/conformance.md table that lists its differences.
func kumaValidatorSuites() []struct{ version, dir, table string } {
	return []struct{ version, dir, table string }{
		{"2.14", kumaSuite, "kuma-validator-suite"},
		{"2.13", "../validate/testdata/conformance/kuma-validators-2.13", "kuma-validator-suite-2.13"},
		{"3.0-preview", "../validate/testdata/conformance/kuma-validators-3.0-preview", "kuma-validator-suite-3.0-preview"},
	}
}

// TestKumaValidatorSuite lints every manifest of Kuma's validator suite of each
// release on its own, under --kuma-version of that release, as the suite's README
// says, and holds the differences against the list in docs/conformance.md: a
// difference that is not listed, or a listed one that no longer happens, fails the
// test. It also prints the two figures the README defines (docs/conformance.md has
// them per release).
func TestKumaValidatorSuite(t *testing.T) {
	for _, r := range kumaValidatorSuites() {
		t.Run(r.version, func(t *testing.T) { runValidatorSuite(t, r.version, r.dir, r.table) })
	}
}

// runValidatorSuite runs the suite in dir under Kuma release version.
func runValidatorSuite(t *testing.T, version, dir, table string) {
	raw, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Cases []suiteCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &suite); err != nil {
		t.Fatal(err)
	}
	s := api.DefaultSettings()
	s.SystemNamespace = "kuma-system"
	s.KumaVersion = version
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry()}
	got := map[string]string{} // "NNN: difference" → case description
	agree, fieldsFound, fieldsAll := 0, 0, 0
	for _, c := range suite.Cases {
		fs, _, _ := Run([]string{filepath.Join(dir, c.File)}, nil, LoadOptions{}, o, nil)
		diffs, found, all := compareSuiteCase(c, fs)
		fieldsFound += found
		fieldsAll += all
		if !strings.HasPrefix(strings.Join(diffs, ""), "verdict") {
			agree++
		}
		for _, d := range diffs {
			got[c.File[:3]+": "+d] = c.Kind + ": " + c.Description
		}
	}
	t.Logf("Kuma %s: %d/%d Kuma validator verdicts agree; %d/%d Kuma violation fields found", version, agree, len(suite.Cases), fieldsFound, fieldsAll)
	holdFigures(t, version, "policy validators", len(suite.Cases), agree)
	holdListed(t, suiteRows(got), listedDiffs(t, conformanceDoc, table, regexp.MustCompile(`^\s*\d{3}\s*$`)), "differences from Kuma "+version+"'s validators", "docs/conformance.md ("+table+")")
}

// suiteRows turns differences ("NNN: difference" → "Kind: entry") into the rows the
// docs table could add, printing only those of -suite-kind when it is set.
func suiteRows(got map[string]string) map[string]string {
	rows := make(map[string]string, len(got))
	for d, desc := range got {
		rows[d] = ""
		if *suiteKind == "" || strings.HasPrefix(desc, *suiteKind+":") {
			rows[d] = fmt.Sprintf("| %s | %s | %s |", strings.Replace(d, ": ", " | ", 1), desc, "(reason)")
		}
	}
	return rows
}

// holdListed fails t when the differences found and the rows of a docs table
// disagree: a difference the table lacks, or a row for one that no longer happens.
// got maps each difference to the row the table could add ("" to count it without
// printing it); listed holds the table's differences. what names them, doc the page.
func holdListed(t *testing.T, got, listed map[string]string, what, doc string) {
	t.Helper()
	var missing, stale []string
	for d, row := range got {
		if _, ok := listed[d]; !ok && row != "" {
			missing = append(missing, row)
		}
	}
	for d := range listed {
		if _, ok := got[d]; !ok {
			stale = append(stale, d)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	if len(missing) > 0 {
		t.Errorf("%d %s are not listed in %s (fix meshguard, or add a row with the reason):\n%s", len(missing), what, doc, strings.Join(missing, "\n"))
	}
	if len(stale) > 0 {
		t.Errorf("%s lists %s that no longer happen (remove the rows):\n%s", doc, what, strings.Join(stale, "\n"))
	}
}

// compareSuiteCase returns the differences of one case ("verdict: Kuma valid, meshguard
// invalid (CODE field)", "missed spec.x.y"), and the Kuma fields found and counted.
func compareSuiteCase(c suiteCase, fs []Finding) (diffs []string, found, all int) {
	var errs []Finding
	for _, f := range fs {
		if f.Code == "MG000" {
			return []string{"verdict: meshguard could not read the file"}, 0, distinctCount(c.Fields)
		}
		if f.Severity == "error" {
			errs = append(errs, f)
		}
	}
	invalid := len(errs) > 0
	switch {
	case c.Expect == "valid" && invalid:
		diffs = append(diffs, fmt.Sprintf("verdict: Kuma valid, meshguard invalid (%s %s)", errs[0].Code, errs[0].Field))
	case c.Expect == "invalid" && !invalid:
		diffs = append(diffs, "verdict: Kuma invalid, meshguard valid")
	}
	if c.Expect != "invalid" {
		return diffs, 0, 0
	}
	seen := map[string]bool{}
	for _, kf := range c.Fields {
		if seen[kf] {
			continue
		}
		seen[kf] = true
		all++
		want := splitPath(rewriteKumaPath(c.Kind, kf))
		ok := false
		for _, e := range errs {
			if pathsAgree(want, splitPath(e.Field)) {
				ok = true
				break
			}
		}
		if ok {
			found++
		} else if invalid {
			diffs = append(diffs, "missed "+kf)
		}
	}
	return diffs, found, all
}

func distinctCount(fields []string) int {
	seen := map[string]bool{}
	for _, f := range fields {
		seen[f] = true
	}
	return len(seen)
}

// rewriteKumaPath applies the suite README's rewrites.
func rewriteKumaPath(kind, p string) string {
	switch kind {
	case "MeshTrafficPermission":
		return regexp.MustCompile(`^(spec\.rules\[\d+\])\.(allow|deny|allowWithShadowDeny)`).ReplaceAllString(p, "$1.default.$2")
	case "MeshMetric":
		p = strings.Replace(p, "spec.default.backends.backend[", "spec.default.backends[", 1)
		return strings.Replace(p, "spec.default.applications.application[", "spec.default.applications[", 1)
	case "MeshRetry":
		return regexp.MustCompile(`^(spec\.to\[\d+\]\.default)\.conf`).ReplaceAllString(p, "$1")
	case "MeshFaultInjection":
		return regexp.MustCompile(`default\.http\.(abort|delay|responseBandwidth)(\[\d+\])`).ReplaceAllString(p, "default.http$2.$1")
	}
	return p
}

// splitPath splits a field path into segments; a map key is the same segment quoted
// or not.
func splitPath(p string) []string {
	var out []string
	for _, part := range strings.Split(p, ".") {
		// a dot inside brackets (tags["kuma.io/service"]) was split too: rejoin.
		if n := len(out); n > 0 && strings.Count(out[n-1], "[") > strings.Count(out[n-1], "]") {
			out[n-1] += "." + part
			continue
		}
		out = append(out, part)
	}
	var segs []string
	for _, part := range out {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			segs = append(segs, name)
		}
		for rest != "" {
			key, after, _ := strings.Cut(rest, "]")
			segs = append(segs, "["+strings.Trim(key, `"`)+"]")
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return segs
}

// pathsAgree is the suite README's rule: equal; or Kuma's is the bare spec and
// meshguard's is spec or spec.<section>; or one is an ancestor of the other and the
// shorter has at least two segments.
func pathsAgree(kuma, ours []string) bool {
	if len(kuma) == 1 && kuma[0] == "spec" {
		return len(ours) >= 1 && len(ours) <= 2 && ours[0] == "spec"
	}
	short, long := kuma, ours
	if len(long) < len(short) {
		short, long = long, short
	}
	if len(short) < 2 && len(short) != len(long) {
		return false
	}
	for i := range short {
		if short[i] != long[i] {
			return false
		}
	}
	return true
}

// markedTable returns the text between the `<!-- name:begin -->` and
// `<!-- name:end -->` markers of the document at path: a table of listed differences.
func markedTable(t *testing.T, path, name string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "<!-- "+name+":begin -->")
	body, _, ok2 := strings.Cut(rest, "<!-- "+name+":end -->")
	if !ok || !ok2 {
		t.Fatalf("%s has no %s markers", path, name)
	}
	return body
}

// listedDiffs reads a suite's table of differences (see markedTable): rows
// "| case | difference | entry | why |" whose case matches id, as "case: difference" →
// why.
func listedDiffs(t *testing.T, path, name string, id *regexp.Regexp) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(markedTable(t, path, name), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !id.MatchString(cells[1]) {
			continue
		}
		out[strings.TrimSpace(cells[1])+": "+strings.Trim(strings.TrimSpace(cells[2]), "`")] = strings.TrimSpace(cells[4])
	}
	return out
}
