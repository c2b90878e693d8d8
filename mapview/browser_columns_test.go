package mapview

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/internal/mapsynth"
)

// wideMap is a map with more client classes than the page draws at once: 130
// workload classes in namespace big, 20 in small and an unauthenticated class,
// against four destinations of sparse rows (version 2 cells): api/d-0 allows
// all but three classes, api/d-1 denies all but ten, api/d-2 judges one class
// only (the rest not judged), api/d-3 allows everyone.
func wideMap() *access.Map {
	m := &access.Map{Version: access.MapVersion, Mesh: "kuma"}
	for i := range 4 {
		m.Destinations = append(m.Destinations, access.MapDestination{ID: fmt.Sprintf("api/d-%d:8080", i),
			Peer: access.Peer{Mesh: "default", Namespace: "api", Workload: fmt.Sprintf("Deployment/d-%d", i), Port: "8080"}, Class: i})
	}
	for i := range 150 {
		ns := "big"
		if i >= 130 {
			ns = "small"
		}
		m.Clients = append(m.Clients, access.MapClient{ID: fmt.Sprintf("%s/c-%03d", ns, i), Kind: access.ClientWorkload, Class: i,
			Peer: access.Peer{Mesh: "default", Namespace: ns, Workload: fmt.Sprintf("Deployment/c-%03d", i)}})
	}
	m.Clients = append(m.Clients, access.MapClient{ID: "unauthenticated", Kind: access.ClientUnauthenticated,
		Peer: access.Peer{Unauthenticated: true}, Class: 150})
	answer := func(decision, policy string, line int) access.Answer {
		item := access.Item{Kind: api.KindMeshTrafficPermission, Policy: policy, Path: "spec.from[0]", Action: "Allow", File: "api/policies.yaml", Line: line}
		if decision == "DENY" {
			item.Action = "Deny"
		}
		return access.Answer{Mesh: "kuma", Decision: decision, DecidedBy: item, Merged: []access.Item{
			{Kind: api.KindMeshTrafficPermission, Policy: "kuma-system/deny-all", File: "mesh/policies.yaml", Line: 4}, item}}
	}
	others := func(d int, a access.Answer) access.MapCell {
		c := access.NewMapCell(d, nil, a)
		c.Others = true
		return c
	}
	tens := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	m.Cells = []access.MapCell{
		access.NewMapCell(0, []int{5, 77, 129}, answer("DENY", "api/deny-three", 20)),
		others(0, answer("ALLOW", "api/allow-most", 10)),
		access.NewMapCell(1, tens, answer("ALLOW", "api/allow-ten", 30)),
		others(1, answer("DENY", "kuma-system/deny-all", 4)),
		access.NewMapCell(2, []int{140}, answer("ALLOW", "api/allow-one", 40)),
		others(3, answer("ALLOW", "api/allow-all", 50)),
	}
	return m
}

// count is how many elements of the page match a CSS selector.
func (tb *tab) count(selector string) int {
	var n int
	tb.eval(fmt.Sprintf(`document.querySelectorAll(%q).length`, selector), &n)
	return n
}

// checkCells holds every drawn cell to the map.
func checkCells(t *testing.T, tb *tab, m *access.Map) []domCell {
	t.Helper()
	cells := tb.cells()
	for _, c := range cells {
		want := "none"
		if _, ok := findCell(m, c.Dest, c.Client); ok {
			want = answerOf(t, m, c.Dest, c.Client).Decision
		}
		if c.Verdict != want {
			t.Errorf("%s from %s: the page shows %s, the map says %s", c.Dest, c.Client, c.Verdict, want)
		}
	}
	return cells
}

// findCell is the map's cell of a pair by IDs, if it judged the pair.
func findCell(m *access.Map, dest, client string) (access.MapCell, bool) {
	i := slices.IndexFunc(m.Destinations, func(d access.MapDestination) bool { return d.ID == dest })
	j := slices.IndexFunc(m.Clients, func(c access.MapClient) bool { return c.ID == client })
	if i < 0 || j < 0 {
		return access.MapCell{}, false
	}
	return m.Cell(m.Destinations[i], m.Clients[j])
}

// aggregateText is the text of the aggregate cell of a row and a closed
// column group.
func (tb *tab) aggregateText(row int, group string) string {
	var s string
	tb.eval(fmt.Sprintf(`(function () { var td = document.querySelector('td[data-r="%d"][data-colgroup=%q]');
		return td ? td.textContent : ''; })()`, row, group), &s)
	return s
}

// TestBrowserManyColumns: a map with more client classes than the page draws
// opens with its columns grouped by namespace and closed, each closed group a
// column of aggregates counted from the rows' sparse cells; a group opens 40
// columns at a time; the client filter and search bring any column into view
// and its cell explains as check does; the verdict filter finds rows by cells
// of closed groups.
func TestBrowserManyColumns(t *testing.T) {
	m := wideMap()
	tb := open(t, render(t, m), "columns")
	if n := tb.count(`#matrix thead th.cgroup button.toggle`); n != 3 {
		t.Fatalf("%d column groups drawn, want 3 (big, small, unauthenticated)", n)
	}
	if n := tb.count(`#matrix thead th[scope=col] button`); n != 0 {
		t.Errorf("%d single columns drawn before any group opens, want none", n)
	}
	if got := tb.shown(); len(got) != 4 {
		t.Fatalf("rows %q, want the 4 destinations", got)
	}
	for row, want := range map[int]string{0: "\u2713127 \u27173", 1: "\u271310 \u2717120", 2: "\u2013", 3: "\u2713"} {
		if got := tb.aggregateText(row, "workload big"); got != want {
			t.Errorf("api/d-%d from the 130 classes of big: %q, want %q", row, got, want)
		}
	}
	if got := tb.aggregateText(2, "workload small"); got != "\u27131 \u201319" {
		t.Errorf("api/d-2 from small: %q, want one allowed and 19 not judged", got)
	}
	tb.screenshot(t, "columns")

	// Opening big draws 40 of its columns, then 40 more.
	tb.do(chromedp.Click(chromedp.CSS(`th.cgroup button.toggle[data-coltoggle="workload big"]`)))
	tb.waitFor(`document.querySelectorAll('#matrix thead th[scope=col] button').length === 40`)
	var focused string
	tb.eval(`document.activeElement.getAttribute('data-coltoggle') || ''`, &focused)
	if focused != "workload big" {
		t.Errorf("opening a column group left the focus on %q, want its toggle", focused)
	}
	if n := len(checkCells(t, tb, m)); n != 4*40 {
		t.Errorf("%d cells drawn, want 4 rows × 40 columns", n)
	}
	tb.do(chromedp.Click(chromedp.CSS(`button[data-colmore="workload big"]`)))
	tb.waitFor(`document.querySelectorAll('#matrix thead th[scope=col] button').length === 80`)
	checkCells(t, tb, m)

	// A cell of a closed group opens that group.
	tb.do(chromedp.Click(chromedp.CSS(`td[data-r="2"][data-colgroup="workload small"] button`)))
	tb.waitFor(`document.querySelectorAll('#matrix thead th[scope=col] button').length === 100`)
	if c := tb.cells(); !slices.ContainsFunc(c, func(x domCell) bool { return x.Client == "small/c-140" && x.Verdict == "ALLOW" }) {
		t.Errorf("opening small does not show api/d-2 allowing small/c-140")
	}

	// The client filter brings a column past the drawn ones into view; the
	// keyboard opens its cell and the panel says what check says.
	tb.choose("f-client", "big/c-129")
	cells := checkCells(t, tb, m)
	if len(cells) != 4 || cells[0].Client != "big/c-129" {
		t.Fatalf("client big/c-129 shows %+v", cells)
	}
	tb.do(chromedp.Focus(cellButton("api/d-0:8080", "big/c-129")), chromedp.KeyEvent(kb.Enter))
	tb.waitFor(`!document.getElementById('explain').hidden`)
	checkExplanation(t, tb, "new", answerOf(t, m, "api/d-0:8080", "big/c-129"))
	tb.do(chromedp.KeyEvent(kb.Escape))
	tb.choose("f-client", "")

	// Search by a client brings its column alone.
	tb.do(chromedp.SendKeys(chromedp.CSS("#f-search"), "c-077"))
	tb.waitFor(`document.querySelectorAll('#matrix thead th[scope=col] button').length === 1`)
	if cells := checkCells(t, tb, m); len(cells) != 4 || cells[0].Client != "big/c-077" {
		t.Errorf("search c-077 shows %+v", cells)
	}
	tb.eval(`(function () { var s = document.getElementById('f-search'); s.value = ''; s.dispatchEvent(new Event('input')); return true; })()`, new(bool))
	tb.waitFor(`document.querySelectorAll('#matrix thead th.cgroup button.toggle').length === 3`)

	// Rows by verdict, with big closed again: only api/d-2 has cells not
	// judged, most of them in the closed group; only d-0 and d-1 deny.
	tb.do(chromedp.Click(chromedp.CSS(`th.cgroup button.toggle[data-coltoggle="workload big"]`)))
	tb.waitFor(`document.querySelectorAll('#matrix thead th.cgroup button.toggle[aria-expanded=true]').length === 1`)
	tb.choose("f-verdict", "none")
	if got := tb.shown(); !slices.Equal(got, []string{"api/d-2:8080"}) {
		t.Errorf("verdict 'not judged' shows %q", got)
	}
	tb.choose("f-verdict", "DENY")
	if got := tb.shown(); !slices.Equal(got, []string{"api/d-0:8080", "api/d-1:8080"}) {
		t.Errorf("verdict 'deny' shows %q", got)
	}
	var caption string
	tb.eval(`document.getElementById('matrix-caption').textContent`, &caption)
	if !strings.Contains(caption, "151 of 151 client classes shown in 3 column groups") {
		t.Errorf("caption %q", caption)
	}
}

// TestBrowserManyRowGroups: rows by class of a map with 120 destination
// classes draw the first 100 groups and the rest on request, and its 83
// client classes are drawn as 43 namespace groups.
func TestBrowserManyRowGroups(t *testing.T) {
	m := mapsynth.Map(400, 40)
	tb := open(t, render(t, m), "rowgroups")
	if n := tb.count(`#matrix thead th.cgroup button.toggle`); n != 43 {
		t.Errorf("%d column groups, want 40 namespaces and 3 kinds that are not workloads", n)
	}
	tb.choose("f-group", "class")
	if n := tb.count(`#matrix tbody tr.group`); n != 100 {
		t.Errorf("rows by class draw %d groups, want the first 100 of 120", n)
	}
	tb.do(chromedp.Focus(chromedp.CSS(`button[data-moregroups]`)), chromedp.KeyEvent(kb.Enter))
	tb.waitFor(`document.querySelectorAll('#matrix tbody tr.group').length === 120`)
	if n := tb.count(`button[data-moregroups]`); n != 0 {
		t.Errorf("all 120 groups drawn, and still %d 'show more' buttons", n)
	}
}

// TestBrowserWideChange: a change whose 83 column classes are drawn as closed
// namespace groups marks the groups' aggregates that hold a change, and
// "changed only" brings the changed columns alone into view.
func TestBrowserWideChange(t *testing.T) {
	c := mapsynth.Change(400, 40)
	var b bytes.Buffer
	if err := WriteChange(&b, c); err != nil {
		t.Fatal(err)
	}
	tb := open(t, b.String(), "widechange")
	var marks []string
	tb.eval(`['workload team-00', 'unauthenticated ', 'workload team-02'].map(function (k) {
		var td = Array.from(document.querySelectorAll('td[data-group="ns team-00"]')).filter(function (x) { return x.dataset.colgroup === k; })[0];
		return td ? td.className : 'missing'; })`, &marks)
	if !strings.Contains(marks[0], "ch-closed") || !strings.Contains(marks[1], "ch-opened") || strings.Contains(marks[2], "ch-") {
		t.Errorf("team-00's aggregates over team-00, unauthenticated and team-02: %q, want closed, opened, unchanged", marks)
	}
	want := map[string]int{}
	for _, d := range c.New.Destinations {
		switch d.Class {
		case 0:
			want[access.CellClosed]++
			want[access.CellOpened]++
		case 3:
			want[access.CellRule]++
		}
	}
	tb.do(chromedp.Click(chromedp.CSS("#f-changed")))
	tb.waitFor(`document.querySelectorAll('#matrix thead th[scope=col] button').length === 3`)
	got := map[string]int{}
	for _, cell := range tb.cells() {
		if cell.Change != "" {
			got[cell.Change]++
		} else if !cell.Dim {
			t.Errorf("changed only: %s from %s is unchanged and not dimmed", cell.Dest, cell.Client)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("changed cells drawn %v, want %v", got, want)
	}
}
