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
	"github.com/meshguard/meshguard/internal/mapsynth"
)

// answerOf is the map's answer for a destination and client, by ID.
func answerOf(t *testing.T, m *access.Map, dest, client string) access.Answer {
	t.Helper()
	i := slices.IndexFunc(m.Destinations, func(d access.MapDestination) bool { return d.ID == dest })
	j := slices.IndexFunc(m.Clients, func(c access.MapClient) bool { return c.ID == client })
	if i < 0 || j < 0 {
		t.Fatalf("the page shows %s from %s, which the map does not have", dest, client)
	}
	cell, ok := m.Cell(m.Destinations[i], m.Clients[j])
	if !ok {
		t.Fatalf("the page shows %s from %s, which the map did not judge", dest, client)
	}
	return m.PairAnswer(&cell, m.Clients[j])
}

func cellButton(dest, client string) chromedp.CSS {
	return chromedp.CSS(fmt.Sprintf(`td[data-dest=%q][data-client=%q] button`, dest, client))
}

// checkExplanation holds the panel's side (old or new) to the answer check gave.
func checkExplanation(t *testing.T, tb *tab, side string, a access.Answer) {
	t.Helper()
	if got := tb.field(side, "decision"); got != a.Decision {
		t.Errorf("%s decision %q, want %q", side, got, a.Decision)
	}
	if got := tb.field(side, "shadow-decision"); got != a.ShadowDecision {
		t.Errorf("%s shadow decision %q, want %q", side, got, a.ShadowDecision)
	}
	by := tb.field(side, "decided-by")
	if !strings.Contains(by, a.DecidedBy.Policy) || !strings.Contains(by, a.DecidedBy.Path) || !strings.Contains(by, a.DecidedBy.Action) {
		t.Errorf("%s decided by %q, want %+v", side, by, a.DecidedBy)
	}
	if got, want := tb.field(side, "location"), fmt.Sprintf("%s:%d", a.DecidedBy.File, a.DecidedBy.Line); got != want {
		t.Errorf("%s deciding item written at %q, want %q", side, got, want)
	}
	if a.ShadowDecidedBy != nil && *a.ShadowDecidedBy == a.DecidedBy {
		if got := tb.field(side, "shadow-decided-by"); got != "the same item" {
			t.Errorf("%s shadow decided by %q, want the same item", side, got)
		}
	}
	merged := tb.list(side, "merged")
	if len(merged) != len(a.Merged) {
		t.Fatalf("%s merged chain %q, want %d policies", side, merged, len(a.Merged))
	}
	for i, it := range a.Merged {
		if want := fmt.Sprintf("%s  %s:%d", it.Policy, it.File, it.Line); !strings.Contains(merged[i], want) {
			t.Errorf("%s merged policy %d is %q, want %q", side, i+1, merged[i], want)
		}
	}
	if notes := tb.list(side, "notes"); !slices.Equal(notes, a.Notes) && len(notes)+len(a.Notes) > 0 {
		t.Errorf("%s notes %q, want %q", side, notes, a.Notes)
	}
}

// TestBrowserMap opens the map of check's real answers, filters it, searches
// it, opens cells with the keyboard and holds what the page shows to the JSON.
func TestBrowserMap(t *testing.T) {
	m := kumaFixture(t)
	tb := open(t, render(t, m), "map")

	cells := tb.cells()
	if len(cells) != len(m.Destinations)*4 {
		t.Fatalf("%d cells drawn, want 6 destinations × 4 client classes", len(cells))
	}
	for _, c := range cells {
		if want := answerOf(t, m, c.Dest, c.Client).Decision; c.Verdict != want || c.Dim {
			t.Errorf("%s from %s: the page shows %s (dim %t), the map says %s", c.Dest, c.Client, c.Verdict, c.Dim, want)
		}
	}

	tb.choose("f-namespace", "legacy")
	if got := tb.shown(); !slices.Equal(got, []string{"legacy/old:8080"}) {
		t.Errorf("namespace legacy shows %q", got)
	}
	tb.choose("f-namespace", "")
	tb.choose("f-workload", "shop/web:8080")
	if got := tb.shown(); !slices.Equal(got, []string{"shop/web:8080"}) {
		t.Errorf("workload shop/web:8080 shows %q", got)
	}
	tb.choose("f-workload", "")
	tb.choose("f-client", "legacy/old")
	for _, c := range tb.cells() {
		if c.Client != "legacy/old" {
			t.Errorf("client legacy/old shows the column of %s", c.Client)
		}
	}
	tb.choose("f-client", "")
	tb.choose("f-verdict", "shadow")
	for _, c := range tb.cells() {
		a := answerOf(t, m, c.Dest, c.Client)
		if shadow := a.ShadowDecision != a.Decision; c.Dim == shadow {
			t.Errorf("verdict 'shadow differs': %s from %s dim %t, its shadow decision %s", c.Dest, c.Client, c.Dim, a.ShadowDecision)
		}
	}
	tb.choose("f-verdict", "")

	// Search by the deciding policy, typed: only the payments owner's denial.
	tb.do(chromedp.SendKeys(chromedp.CSS("#f-search"), "payments-owner"))
	tb.waitFor(`document.querySelectorAll('#matrix tbody th[scope=row]').length === 1`)
	var lit []string
	for _, c := range tb.cells() {
		if !c.Dim {
			lit = append(lit, c.Dest+" from "+c.Client)
		}
	}
	if !slices.Equal(lit, []string{"shop/payments:8080 from shop/cart"}) {
		t.Errorf("search payments-owner lights %q", lit)
	}
	tb.eval(`(function () { var s = document.getElementById('f-search'); s.value = ''; s.dispatchEvent(new Event('input')); return true; })()`, new(bool))
	tb.waitFor(`document.querySelectorAll('#matrix tbody th[scope=row]').length === 6`)

	// The keyboard opens a cell; the panel says what check says.
	tb.do(chromedp.Focus(cellButton("shop/payments:8080", "shop/cart")), chromedp.KeyEvent(kb.Enter))
	tb.waitFor(`!document.getElementById('explain').hidden`)
	var focused string
	tb.eval(`document.activeElement.id`, &focused)
	if focused != "explain-title" {
		t.Errorf("opening a cell left the focus on %q, want the panel", focused)
	}
	checkExplanation(t, tb, "new", answerOf(t, m, "shop/payments:8080", "shop/cart"))

	tb.do(chromedp.Focus(cellButton("shop/payments:8080", "legacy/old")), chromedp.KeyEvent(kb.Enter))
	tb.waitFor(`document.querySelector('[data-field=pair]').textContent.indexOf('legacy/old') >= 0`)
	checkExplanation(t, tb, "new", answerOf(t, m, "shop/payments:8080", "legacy/old"))
	tb.screenshot(t, "map")

	tb.do(chromedp.KeyEvent(kb.Escape))
	tb.waitFor(`document.getElementById('explain').hidden`)
	tb.eval(`document.activeElement.closest('td') ? document.activeElement.closest('td').dataset.client : ''`, &focused)
	if focused != "legacy/old" {
		t.Errorf("closing the panel left the focus on %q, want the cell that opened it", focused)
	}
}

// TestBrowserChange opens a change: the cells that open, close or change their
// rule are marked as the change says, "changed only" keeps just them, and a
// closed cell explains before and after.
func TestBrowserChange(t *testing.T) {
	c := mapsynth.Change(60, 3)
	var b bytes.Buffer
	if err := WriteChange(&b, c); err != nil {
		t.Fatal(err)
	}
	tb := open(t, b.String(), "change")

	// The page's columns are classes of clients in both maps; each shows its
	// first client. A change of any client shows in its column.
	type key struct{ newCls, oldCls int }
	keyOf, rep := map[string]key{}, map[key]string{}
	for _, side := range []*access.Map{c.New, c.Old} {
		for _, cl := range side.Clients {
			if _, ok := keyOf[cl.ID]; ok {
				continue
			}
			o := slices.IndexFunc(c.Old.Clients, func(x access.MapClient) bool { return x.ID == cl.ID })
			k := key{cl.Class, c.Old.Clients[o].Class}
			keyOf[cl.ID] = k
			if _, ok := rep[k]; !ok {
				rep[k] = cl.ID
			}
		}
	}
	want := map[string]string{}
	changedDests := map[string]bool{}
	for _, ch := range c.Changes {
		want[ch.Destination+" from "+rep[keyOf[ch.Client]]] = ch.Kind
		changedDests[ch.Destination] = true
	}
	got := map[string]string{}
	for _, cell := range tb.cells() {
		if cell.Change != "" {
			got[cell.Dest+" from "+cell.Client] = cell.Change
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("changed cells on the page:\n%v\nwant:\n%v", got, want)
	}

	tb.do(chromedp.Click(chromedp.CSS("#f-changed")))
	tb.waitFor(fmt.Sprintf(`document.querySelectorAll('#matrix tbody th[scope=row]').length === %d`, len(changedDests)))
	for _, cell := range tb.cells() {
		if !changedDests[cell.Dest] || (cell.Change == "") != cell.Dim {
			t.Errorf("changed only: %s from %s shown (change %q, dim %t)", cell.Dest, cell.Client, cell.Change, cell.Dim)
		}
	}

	i := slices.IndexFunc(c.Changes, func(ch access.MapCellChange) bool { return ch.Kind == access.CellClosed })
	closed := c.Changes[i]
	tb.do(chromedp.Click(cellButton(closed.Destination, rep[keyOf[closed.Client]])))
	tb.waitFor(`!document.getElementById('explain').hidden`)
	var change string
	tb.eval(`document.querySelector('#explain-body [data-field=change]').textContent`, &change)
	if !strings.Contains(change, "closed") {
		t.Errorf("the panel says %q of a closed cell", change)
	}
	checkExplanation(t, tb, "new", *closed.New)
	checkExplanation(t, tb, "old", *closed.Old)
	tb.screenshot(t, "change")
}

// TestBrowserHostileNames: names written to break out of the JSON or to run
// script stay text on the page, and the page loads nothing because of them.
func TestBrowserHostileNames(t *testing.T) {
	evil := `</script><img src=x onerror="document.title='pwned'">`
	m := kumaFixture(t)
	m.Cells[0].Answer.DecidedBy.Policy = "shop/" + evil
	m.Destinations[0].ID = `shop/<b>x</b>"'&amp;:8080`
	m.Clients[0].ID = "</SCRIPT ><svg onload=\"document.title='pwned'\">"
	tb := open(t, render(t, m), "hostile")
	var state struct {
		Title    string
		Elements int
		Rows     []string
	}
	tb.eval(`({ title: document.title, elements: document.querySelectorAll('img, svg, b').length,
		rows: Array.from(document.querySelectorAll('th[scope=row]')).map(function (th) { return th.textContent; }) })`, &state)
	if state.Title != "meshguard access map (kuma)" || state.Elements != 0 {
		t.Errorf("a hostile name ran or made markup: title %q, %d img/svg/b elements", state.Title, state.Elements)
	}
	if !slices.Contains(state.Rows, m.Destinations[0].ID) {
		t.Errorf("the hostile destination is not shown as text: %q", state.Rows)
	}
	tb.do(chromedp.Click(chromedp.CSS(`td[data-r="0"][data-c="0"] button`)))
	tb.waitFor(`!document.getElementById('explain').hidden`)
	if by := tb.field("new", "decided-by"); !strings.Contains(by, evil) {
		t.Errorf("the panel shows the hostile policy as %q", by)
	}
}

// TestBrowserLargeMap: a map of 1,000 destinations opens collapsed to its
// namespaces, a filter that leaves one row shows it, a namespace opens 200 rows
// at a time, search finds a column of callers that are not workloads, and rows
// group by class.
func TestBrowserLargeMap(t *testing.T) {
	m := mapsynth.Map(1000, 2)
	tb := open(t, render(t, m), "large")
	var ready string
	tb.eval(`document.body.dataset.readyMs`, &ready)
	t.Logf("interactive %s ms after navigation (a figure, not a check: see docs/performance.md)", ready)
	if rows := tb.shown(); len(rows) != 0 {
		t.Errorf("a large map opens with %d rows drawn, want its namespaces collapsed", len(rows))
	}
	// The workload list (1,000 options) is filled when the select first takes
	// the focus, not on load.
	if n := tb.count(`#f-workload option`); n != 1 {
		t.Errorf("the workload select has %d options on load, want only \"all\"", n)
	}
	tb.do(chromedp.Focus(chromedp.CSS("#f-workload")))
	if n := tb.count(`#f-workload option`); n != 1001 {
		t.Errorf("the focused workload select has %d options, want all and 1,000 workloads", n)
	}
	// Filters that leave few rows open their groups.
	tb.choose("f-workload", "team-01/app-0001:8080")
	if rows := tb.shown(); !slices.Equal(rows, []string{"team-01/app-0001:8080"}) {
		t.Errorf("workload team-01/app-0001:8080 shows %q", rows)
	}
	tb.choose("f-workload", "")
	tb.do(chromedp.Click(chromedp.CSS(`button[data-toggle="ns team-00"]`)))
	tb.waitFor(`document.querySelectorAll('#matrix tbody th[scope=row]').length === 200`)
	tb.do(chromedp.Click(chromedp.CSS(`button[data-more="ns team-00"]`)))
	tb.waitFor(`document.querySelectorAll('#matrix tbody th[scope=row]').length === 400`)

	tb.do(chromedp.SendKeys(chromedp.CSS("#f-search"), "unauthenticated"))
	tb.waitFor(`document.querySelectorAll('#matrix thead th[scope=col] button').length === 1`)
	var client string
	tb.eval(`document.querySelector('#matrix td[data-client]').dataset.client`, &client)
	if client != "unauthenticated" {
		t.Errorf("search unauthenticated shows the column of %q", client)
	}
	tb.choose("f-group", "class")
	var groups int
	tb.eval(`document.querySelectorAll('#matrix tbody').length`, &groups)
	if groups != 6 {
		t.Errorf("rows by class: %d groups, want the 6 destination classes", groups)
	}
}

// TestBrowserEmptyMap: a map with nothing in it (no workload in the input)
// opens, says so, and throws nothing.
func TestBrowserEmptyMap(t *testing.T) {
	tb := open(t, render(t, &access.Map{Version: access.MapVersion, Mesh: "linkerd", Notes: []string{"no workload in the input"}}), "empty")
	var caption string
	tb.eval(`document.getElementById('matrix-caption').textContent + ' | ' + document.getElementById('notes-list').textContent`, &caption)
	if !strings.Contains(caption, "0 of 0 destinations") || !strings.Contains(caption, "no workload in the input") {
		t.Errorf("an empty map says %q", caption)
	}
}

// TestBrowserLinkerd: the panel says what check says of a Linkerd call: the
// Server, the route, the authorization and its authentication, and the
// authorizations considered in order.
func TestBrowserLinkerd(t *testing.T) {
	m := linkerdFixture(t)
	tb := open(t, render(t, m), "linkerd")
	if rows := tb.shown(); !slices.Equal(rows, []string{"shop/web:8080", "shop/web:9990", "shop/web:9100"}) {
		t.Fatalf("rows %q, want the web pods' three ports", rows)
	}
	for _, c := range tb.cells() {
		if want := answerOf(t, m, c.Dest, c.Client).Decision; c.Verdict != want {
			t.Errorf("%s from %s: the page shows %s, the map says %s", c.Dest, c.Client, c.Verdict, want)
		}
	}
	tb.do(chromedp.Click(cellButton("shop/web:8080", "shop/gateway")))
	tb.waitFor(`!document.getElementById('explain').hidden`)
	a := answerOf(t, m, "shop/web:8080", "shop/gateway")
	checkExplanation(t, tb, "new", a)
	if got := tb.field("new", "server"); got != a.Server {
		t.Errorf("server %q, want %q", got, a.Server)
	}
	if got := tb.field("new", "route"); got != a.Route {
		t.Errorf("route %q, want %q", got, a.Route)
	}
	if got := tb.field("new", "authentication"); a.DecidedBy.Authentication == nil || !strings.Contains(got, a.DecidedBy.Authentication.Policy) {
		t.Errorf("authentication %q, want %+v", got, a.DecidedBy.Authentication)
	}
	if got := tb.list("new", "considered"); !slices.Equal(got, a.Considered) {
		t.Errorf("authorizations considered %q, want %q", got, a.Considered)
	}
}
