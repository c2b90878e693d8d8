package mapview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/internal/mapsynth"
)

func render(t testing.TB, m *access.Map) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteMap(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// scripts parses the page as a browser would and returns the text of its
// script elements, and the names of every element.
func scripts(t *testing.T, page string) (texts []string, types []string, elements map[string]int) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	elements = map[string]int{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			elements[n.Data]++
			if n.Data == "script" {
				typ := ""
				for _, a := range n.Attr {
					if a.Key == "type" {
						typ = a.Val
					}
				}
				var b strings.Builder
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					b.WriteString(c.Data)
				}
				texts, types = append(texts, b.String()), append(types, typ)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return texts, types, elements
}

// dataOf is the map JSON the page carries, as JSON.parse reads it.
func dataOf(t *testing.T, page string) string {
	t.Helper()
	texts, types, _ := scripts(t, page)
	for i, typ := range types {
		if typ == "application/json" {
			return texts[i]
		}
	}
	t.Fatal("the page has no application/json script")
	return ""
}

// TestPageCarriesTheMap: the JSON in the page is the map, field for field,
// and the page's one script is the one its Content-Security-Policy allows.
func TestPageCarriesTheMap(t *testing.T) {
	m := kumaFixture(t)
	page := render(t, m)
	var got access.Map
	if err := json.Unmarshal([]byte(dataOf(t, page)), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*m, got); diff != "" {
		t.Errorf("the page's JSON is not the map (-want +got):\n%s", diff)
	}
	texts, types, _ := scripts(t, page)
	if len(texts) != 2 || types[0] != "application/json" || types[1] != "" {
		t.Fatalf("scripts %q, want the map's JSON and one script", types)
	}
	csp := regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]*)"`).FindStringSubmatch(page)
	if csp == nil || !strings.Contains(html.UnescapeString(csp[1]), "default-src 'none'") || !strings.Contains(html.UnescapeString(csp[1]), hash(texts[1])) {
		t.Errorf("the Content-Security-Policy does not pin the script: %v", csp)
	}
	if again := render(t, m); again != page {
		t.Error("two renders of one map differ; the page must be reproducible")
	}
}

// TestPageLoadsNothing: no element of the page names anything to fetch (the
// browser test also watches the requests the page makes).
func TestPageLoadsNothing(t *testing.T) {
	page := render(t, mapsynth.Map(40, 4))
	outside := strings.Replace(page, dataOf(t, page), "", 1)
	for _, bad := range []string{"src=", "href=", "<link", "url(", "@import", "http://", "https://", "fetch(", "XMLHttpRequest", "WebSocket"} {
		if strings.Contains(outside, bad) {
			t.Errorf("the page (outside its data) holds %q", bad)
		}
	}
}

// TestHostileNames: a policy, workload and namespace named to break out of the
// JSON element or start markup stay data: the parsed page has the same two
// scripts and no other element, and the JSON reads back the same names.
func TestHostileNames(t *testing.T) {
	evil := `</script><img src=x onerror="document.title='pwned'">`
	m := kumaFixture(t)
	m.Cells[0].Answer.DecidedBy.Policy = "shop/" + evil
	m.Cells[0].Answer.Notes = append(m.Cells[0].Answer.Notes, "<!-- "+evil+" \u2028 -->")
	m.Destinations[0].ID = `shop/<b>x</b>"'&amp;:8080`
	m.Clients[0].ID = "</SCRIPT ><svg onload=alert(1)>"
	m.Notes = append(m.Notes, "<script>alert(1)</script>")
	page := render(t, m)
	for _, bad := range []string{"<img", "<svg", "<b>", "<!--", "onerror=\"", "\u2028"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q literally", bad)
		}
	}
	_, types, elements := scripts(t, page)
	if len(types) != 2 || elements["img"]+elements["svg"]+elements["b"] != 0 {
		t.Errorf("hostile names made elements: scripts %q, elements %v", types, elements)
	}
	var got access.Map
	if err := json.Unmarshal([]byte(dataOf(t, page)), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*m, got); diff != "" {
		t.Errorf("hostile names changed on the way (-want +got):\n%s", diff)
	}
}

// TestWriteChange: a change's page carries the change and says so.
func TestWriteChange(t *testing.T) {
	c := mapsynth.Change(12, 2)
	if len(c.Changes) == 0 {
		t.Fatal("the synthetic change changes nothing")
	}
	var b bytes.Buffer
	if err := WriteChange(&b, c); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, `data-kind="change"`) {
		t.Error("the change page does not say it is a change")
	}
	var got access.MapChange
	if err := json.Unmarshal([]byte(dataOf(t, page)), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*c, got); diff != "" {
		t.Errorf("the page's JSON is not the change (-want +got):\n%s", diff)
	}
}

// TestWriteRefuses: what the page's script cannot read is an error that says
// what is wrong, never a broken page.
func TestWriteRefuses(t *testing.T) {
	var b bytes.Buffer
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil map", WriteMap(&b, nil), "no map"},
		{"other version", WriteMap(&b, &access.Map{Version: access.MapVersion + 1}), fmt.Sprintf("map version %d, this renderer reads version %d", access.MapVersion+1, access.MapVersion)},
		{"nil change", WriteChange(&b, nil), "needs both maps"},
		{"one side", WriteChange(&b, &access.MapChange{Version: access.MapVersion, New: mapsynth.Map(2, 1)}), "needs both maps"},
		{"old side's version", WriteChange(&b, &access.MapChange{Version: access.MapVersion, Old: &access.Map{}, New: mapsynth.Map(2, 1)}), "old map version 0"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, tc.err, tc.want)
		}
	}
	if b.Len() != 0 {
		t.Errorf("a refused page wrote %d bytes", b.Len())
	}
}
