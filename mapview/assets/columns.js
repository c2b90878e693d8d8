// columns.js draws the matrix's columns and the cells that stand for many:
// the header rows, and the aggregates of a closed row group, a closed column
// group, or both. A map with thousands of client classes draws its columns as
// groups by kind and namespace (closed until opened, COL_PAGE columns of an
// open group at a time), so the table stays a few dozen columns wide whatever
// the map; the client filter or search brings any one column into view.

// blank is an empty summary of cells: how many of each verdict, whether one
// has a different shadow decision, the first change, and whether one is not
// dimmed by the filters.
function blank() {
  return { n: { ALLOW: 0, DENY: 0, none: 0 }, exc: 0, shadow: false, change: null, undimmed: false };
}

// addCell counts cell c k times into summary s.
function addCell(s, c, k, dim) {
  s.n[c.verdict] += k;
  if (c.shadow) { s.shadow = true; }
  if (c.change && !s.change) { s.change = c.change; }
  if (!dim(c)) { s.undimmed = true; }
}

// addSummary counts summary t k times into summary s.
function addSummary(s, t, k) {
  s.n.ALLOW += t.n.ALLOW * k;
  s.n.DENY += t.n.DENY * k;
  s.n.none += t.n.none * k;
  s.shadow = s.shadow || t.shadow;
  s.change = s.change || t.change;
  s.undimmed = s.undimmed || t.undimmed;
}

// summarize is a row class's summary per column group of the view, over the
// columns the filters keep: its exceptions one by one, its default for the
// rest of each group. It costs the row's exceptions, not the columns, and is
// computed once per class and view.
function summarize(v, rc) {
  var s = v.sums.get(rc);
  if (s) { return s; }
  s = v.colGroups.map(blank);
  rc.exc.forEach(function (c, ci) {
    var gi = v.groupOf[ci];
    if (gi === undefined) { return; }
    s[gi].exc++;
    addCell(s[gi], c, 1, v.dim);
  });
  s.forEach(function (x, gi) {
    var rest = v.colGroups[gi].cols.length - x.exc;
    if (rest > 0) { addCell(x, rc.def, rest, v.dim); }
  });
  s.any = s.some(function (x) { return x.undimmed; });
  v.sums.set(rc, s);
  return s;
}

function colOpen(g) { return state.colOpen.get(g.key) === true; }

// drawnItems is what the table draws left to right: a column, or a closed
// column group as one column of aggregates.
function drawnItems(v) {
  if (!v.grouped) { return v.cols.map(function (col) { return { col: col }; }); }
  var items = [];
  v.colGroups.forEach(function (g) {
    if (!colOpen(g)) { items.push({ group: g }); return; }
    g.cols.slice(0, state.colLimit.get(g.key) || COL_PAGE).forEach(function (col) { items.push({ col: col, group: g }); });
  });
  return items;
}

// shortName is what a column header has room for: the workload's name
// (its namespace goes below), else the client's ID.
function shortName(m) {
  var w = m.peer.name || m.peer.workload || '';
  if (m.kind === 'workload' && w) { return w.slice(w.lastIndexOf('/') + 1); }
  return m.id;
}

function colHead(c) {
  var th = el('th', { scope: 'col', title: c.members.slice(0, 30).map(function (m) { return m.id; }).join('\n') });
  var b = el('button', { type: 'button', className: 'head', 'data-col': c.index, 'aria-label': c.rep.id + (c.members.length > 1 ? ' and ' + (c.members.length - 1) + ' more' : '') }, shortName(c.rep));
  if (c.rep.peer.namespace) { b.appendChild(el('small', null, c.rep.peer.namespace)); }
  if (c.members.length > 1) { b.appendChild(el('small', null, '+' + (c.members.length - 1) + ' alike')); }
  th.appendChild(b);
  return th;
}

// groupHead is a column group's header: its toggle and, when open with more
// columns than drawn, a button for the next ones.
function groupHead(g, span) {
  var open = colOpen(g);
  var th = el('th', { scope: 'colgroup', className: 'cgroup' });
  th.colSpan = span;
  th.appendChild(el('button', { type: 'button', className: 'toggle', 'aria-expanded': String(open), 'data-coltoggle': g.key },
    (open ? '\u25be ' : '\u25b8 ') + g.label + ' (' + g.cols.length + ')'));
  var limit = state.colLimit.get(g.key) || COL_PAGE;
  if (open && g.cols.length > limit) {
    th.appendChild(el('button', { type: 'button', 'data-colmore': g.key },
      'next ' + Math.min(COL_PAGE, g.cols.length - limit) + ' of ' + (g.cols.length - limit)));
  }
  return th;
}

function head(v) {
  var thead = $('matrix-head');
  thead.textContent = '';
  var top = el('tr'), names = el('tr');
  top.appendChild(el('th', { scope: 'col', rowspan: '2' }, 'destination \\ client'));
  var last = null, span = null;
  v.items.forEach(function (it) {
    var key = v.grouped ? it.group.key : it.col.kind;
    if (key !== last) {
      span = v.grouped ? groupHead(it.group, 0) : el('th', { scope: 'colgroup' }, KIND_LABELS[it.col.kind] || it.col.kind);
      span.n = 0;
      top.appendChild(span);
      last = key;
    }
    span.n += 1;
    span.colSpan = span.n;
    if (it.col) {
      names.appendChild(colHead(it.col));
      return;
    }
    var th = el('th', { scope: 'colgroup', className: 'cgroup' });
    th.appendChild(el('button', { type: 'button', className: 'head', 'data-coltoggle': it.group.key,
      'aria-label': 'open ' + it.group.label + ': ' + it.group.cols.length + ' client classes' },
      it.group.cols.length + (it.group.cols.length === 1 ? ' class' : ' classes')));
    names.appendChild(th);
  });
  thead.appendChild(top);
  thead.appendChild(names);
  // Fixed column widths: the browser lays the table out from them instead of
  // measuring every cell, which keeps a large map fast to draw and to open.
  var table = $('matrix'), cg = table.querySelector('colgroup');
  if (cg) { table.removeChild(cg); }
  cg = el('colgroup');
  cg.appendChild(el('col', { className: 'c-dest' }));
  v.items.forEach(function () { cg.appendChild(el('col', { className: 'c-cell' })); });
  table.insertBefore(cg, thead);
  table.style.width = (16 + 7.5 * v.items.length) + 'rem';
}

// aggTD is a cell that stands for several: the verdict when they all agree,
// else the counts.
function aggTD(attrs, s, label) {
  var kinds = ['ALLOW', 'DENY', 'none'].filter(function (k) { return s.n[k] > 0; });
  var td = el('td', attrs);
  td.className = (kinds.length === 1 ? 'v-' + kinds[0] : 'v-mixed') + (s.shadow ? ' shadow' : '') +
    (s.change ? ' ch-' + s.change.kind : '') + (s.undimmed ? '' : ' dim');
  var text = kinds.length === 1 ? SYMBOL[kinds[0]] : kinds.map(function (k) { return SYMBOL[k] + s.n[k]; }).join(' ');
  td.appendChild(el('button', { type: 'button', 'aria-label': label + ': ' + kinds.map(function (k) { return s.n[k] + ' ' + k; }).join(', ') }, text));
  return td;
}

// groupCell is a row group's header cell for one drawn item: over the group's
// row classes (each looked up once and counted for its rows) and, for a
// closed column group, over its columns.
function groupCell(g, it, v) {
  var s = blank();
  if (it.col) {
    g.classes.forEach(function (x) { addCell(s, cellAt(x.rc, it.col), x.n, v.dim); });
    return aggTD({ 'data-group': g.key, 'data-c': it.col.index }, s, g.label + ' from ' + it.col.rep.id);
  }
  g.classes.forEach(function (x) { addSummary(s, summarize(v, x.rc)[it.group.index], x.n); });
  return aggTD({ 'data-group': g.key, 'data-colgroup': it.group.key }, s, g.label + ' from ' + it.group.label);
}

// rowGroupCell is a row's cell for a closed column group.
function rowGroupCell(r, g, v) {
  return aggTD({ 'data-r': r.index, 'data-colgroup': g.key }, summarize(v, r.cls)[g.index], r.id + ' from ' + g.label);
}

// openColumns opens (or closes) a column group and puts the focus on its
// toggle in the redrawn header.
function openColumns(key, open) {
  state.colOpen.set(key, open);
  render();
  var b = Array.from(document.querySelectorAll('#matrix thead th.cgroup button.toggle')).filter(function (x) {
    return x.getAttribute('data-coltoggle') === key;
  })[0];
  if (b) { b.focus(); }
}
