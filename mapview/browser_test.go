package mapview

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The page's tests in a real browser: one headless Chromium per test binary,
// started by the first test that needs it, one tab per test. The browser is
// the Debian package chromium, which `make test` installs with
// hack/install-chromium.sh and names in MESHGUARD_CHROMIUM; the tests skip,
// saying so, only when no Chromium can be found.

// browser is this test binary's one Chromium.
type browser struct {
	mu      sync.Mutex
	started bool
	ctx     context.Context
	stop    []context.CancelFunc
	skip    string
	err     error
}

// chrome is shared by the tests of this binary so that it starts once.
var chrome browser

func TestMain(m *testing.M) {
	code := m.Run()
	for _, cancel := range chrome.stop {
		cancel()
	}
	os.Exit(code)
}

// findChromium is the browser to drive: MESHGUARD_CHROMIUM, else the first of
// the usual names on PATH; the second result says why there is none.
func findChromium() (string, string) {
	if p := os.Getenv("MESHGUARD_CHROMIUM"); p != "" {
		return p, ""
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, ""
		}
	}
	return "", "no Chromium for the HTML page's browser tests: run `bash hack/install-chromium.sh` " +
		"(apt-get install chromium) or set MESHGUARD_CHROMIUM; `make test` installs it"
}

// context starts the browser on first use and returns its context, or skips
// the test when there is no browser. A browser that is there but does not
// start fails the test.
func (b *browser) context(t testing.TB) context.Context {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.started {
		b.started = true
		path, skip := findChromium()
		b.skip = skip
		if skip == "" {
			// No sandbox: the pages are the test's own files, and Chromium's sandbox
			// cannot start as root, in many containers, or on runners that forbid
			// unprivileged user namespaces.
			opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1200, 680), chromedp.NoSandbox)
			actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
			bctx, bcancel := chromedp.NewContext(actx)
			b.stop = []context.CancelFunc{bcancel, acancel}
			b.ctx = bctx
			if err := chromedp.Do(bctx); err != nil {
				b.err = fmt.Errorf("starting Chromium %s: %w", path, err)
			}
		}
	}
	if b.skip != "" {
		t.Skip(b.skip)
	}
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.ctx
}

// tab is one page open in the browser, with what it asked the network for
// and the errors it logged.
type tab struct {
	t        testing.TB
	ctx      context.Context
	url      string
	mu       sync.Mutex
	requests []string
	problems []string
}

// open writes page to a file, opens it in a new tab, waits until its script
// has drawn the matrix, and at the end of the test fails it if the page made
// any request but its own file, threw, or broke its Content-Security-Policy.
func open(t testing.TB, page, name string) *tab {
	t.Helper()
	file := filepath.Join(t.TempDir(), name+".html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(chrome.context(t))
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	tb := &tab{t: t, url: "file://" + file}
	if err := chromedp.Listen(ctx, tb.listen); err != nil {
		t.Fatal(err)
	}
	tctx, tcancel := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(tcancel)
	tb.ctx = tctx
	t.Cleanup(tb.check)
	tb.do(chromedp.EmulateViewport(1200, 680), chromedp.Navigate(tb.url))
	tb.waitFor(`document.body.dataset.ready === 'true'`)
	return tb
}

func (tb *tab) listen(ev any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		tb.requests = append(tb.requests, ev.Request.URL)
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil {
			text += " " + d.Exception.Description
		}
		tb.problems = append(tb.problems, fmt.Sprintf("exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, text))
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
			tb.problems = append(tb.problems, fmt.Sprintf("%s %s: %s", ev.Entry.Source, ev.Entry.Level, ev.Entry.Text))
		}
	}
}

func (tb *tab) check() {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, u := range tb.requests {
		if u != tb.url {
			tb.t.Errorf("the page requested %s; it must load nothing", u)
		}
	}
	for _, p := range tb.problems {
		tb.t.Errorf("the browser reported: %s", p)
	}
}

func (tb *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, steps...); err != nil {
		tb.t.Fatal(err)
	}
}

// eval runs a script in the page and decodes its JSON value into out.
func (tb *tab) eval(script string, out any) {
	tb.t.Helper()
	raw, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]byte](script))
	if err != nil {
		tb.t.Fatalf("%s: %v", script, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		tb.t.Fatalf("%s: %v (%s)", script, err, raw)
	}
}

func (tb *tab) waitFor(predicate string) {
	tb.t.Helper()
	if _, err := chromedp.Run(tb.ctx, chromedp.Poll[bool](predicate, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		tb.t.Fatalf("waiting for %s: %v", predicate, err)
	}
}

// choose picks an option of a filter as a user does: the select is pressed
// (a long list is filled then), the value changes and the change event fires.
func (tb *tab) choose(id, value string) {
	tb.t.Helper()
	v, _ := json.Marshal(value)
	var ok bool
	tb.eval(fmt.Sprintf(`(function () { var s = document.getElementById(%q);
		s.dispatchEvent(new MouseEvent('mousedown', { bubbles: true })); s.value = %s;
		s.dispatchEvent(new Event('change', { bubbles: true })); return s.value === %s; })()`, id, v, v), &ok)
	if !ok {
		tb.t.Fatalf("filter %s has no option %s", id, value)
	}
}

// shown is the destinations of the rows drawn, in order.
func (tb *tab) shown() []string {
	var ids []string
	tb.eval(`Array.from(document.querySelectorAll('#matrix tbody th[scope=row]')).map(function (th) { return th.textContent; })`, &ids)
	return ids
}

// domCell is a drawn cell as the page shows it.
type domCell struct {
	Dest, Client, Verdict, Change string
	Dim                           bool
}

func (tb *tab) cells() []domCell {
	var out []domCell
	tb.eval(`Array.from(document.querySelectorAll('#matrix td[data-dest]')).map(function (td) {
		return { dest: td.dataset.dest, client: td.dataset.client, verdict: td.dataset.verdict,
			change: td.dataset.change || '', dim: td.classList.contains('dim') }; })`, &out)
	return out
}

// field is the text of the explanation panel's data-field f (in a change,
// under the section of side "old" or "new").
func (tb *tab) field(side, f string) string {
	var s string
	tb.eval(fmt.Sprintf(`(function () { var e = document.querySelector('#explain-body section[data-side=%q] [data-field=%q]');
		return e ? e.textContent : ''; })()`, side, f), &s)
	return s
}

func (tb *tab) list(side, f string) []string {
	var s []string
	tb.eval(fmt.Sprintf(`Array.from(document.querySelectorAll('#explain-body section[data-side=%q] [data-field=%q] li')).map(function (li) { return li.textContent; })`, side, f), &s)
	return s
}

// screenshot keeps what the tab shows as a test artifact: under
// $MESHGUARD_ARTIFACTS/mapview (make test sets it to _artifacts), else in the
// test's artifact directory (go test -artifacts keeps it).
func (tb *tab) screenshot(t *testing.T, name string) string {
	t.Helper()
	png, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.ArtifactDir()
	if d := os.Getenv("MESHGUARD_ARTIFACTS"); d != "" {
		dir = filepath.Join(d, "mapview")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	return path
}
