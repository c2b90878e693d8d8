// view.js draws the model as a table: client columns grouped by kind, rows
// grouped by namespace or class (collapsed when the map is large, and at most
// PAGE rows drawn per group until asked for more), the filters, and the
// explanation panel. Every name from the map is written with textContent, never
// parsed as markup.

var PAGE = 200;
var OPEN_LIMIT = 150;
var SYMBOL = { ALLOW: '\u2713', DENY: '\u2717', none: '\u2013' };
var CHANGE_MARK = { 'opened': '+', 'closed': '\u2212', 'rule-changed': '~', 'shadow-changed': 's' };
var CHANGE_WORDS = {
  'opened': 'opened (denied or absent before, allowed now)',
  'closed': 'closed (allowed before, denied or absent now)',
  'rule-changed': 'same verdict, another deciding rule',
  'shadow-changed': 'the shadow decision changed'
};

function $(id) { return document.getElementById(id); }

function el(tag, attrs, text) {
  var e = document.createElement(tag);
  if (attrs) {
    Object.keys(attrs).forEach(function (k) {
      if (k === 'className') { e.className = attrs[k]; } else { e.setAttribute(k, attrs[k]); }
    });
  }
  if (text !== undefined && text !== null) { e.textContent = String(text); }
  return e;
}

var dataEl = $('meshguard-data');
var model = buildModel(dataEl.getAttribute('data-kind'), JSON.parse(dataEl.textContent));
var state = {
  ns: '', workload: '', client: '', verdict: '', search: '', changedOnly: false, group: 'namespace',
  open: new Map(), limit: new Map(), allOpen: null, selected: null
};

function cellMatches(c) {
  switch (state.verdict) {
    case '': return true;
    case 'shadow': return c.shadow;
    default: return c.verdict === state.verdict;
  }
}

// visible applies the filters: which columns, which rows, and which cells of
// them are dimmed (present but not what the verdict filter or search asks for).
// Search keeps the destinations whose name matches; failing those, the client
// columns whose members match; failing both, the cells whose deciding policy
// matches.
function visible() {
  var q = state.search.trim().toLowerCase();
  var rowHit = function (r) { return r.text.indexOf(q) >= 0 || r.ns.toLowerCase().indexOf(q) >= 0; };
  var colHit = function (c) { return c.text.indexOf(q) >= 0; };
  var anyRowHit = !!q && model.rows.some(rowHit);
  var anyColHit = !!q && !anyRowHit && model.cols.some(colHit);
  var byPolicy = !!q && !anyRowHit && !anyColHit;
  var cols = model.cols.filter(function (c) {
    if (state.client && !c.members.some(function (m) { return m.id === state.client; })) { return false; }
    if (state.changedOnly && !c.changed) { return false; }
    return !anyColHit || colHit(c);
  });
  var dim = function (c) {
    return !cellMatches(c) || (byPolicy && c.policies.indexOf(q) < 0) || (state.changedOnly && !c.change);
  };
  var rows = model.rows.filter(function (r) {
    if (state.ns && r.ns !== state.ns) { return false; }
    if (state.workload && r.id !== state.workload) { return false; }
    if (anyRowHit && !rowHit(r)) { return false; }
    if (model.cols.length === 0) { return true; }
    return cols.some(function (c) { return !dim(r.cells[c.index]); });
  });
  return { rows: rows, cols: cols, dim: dim };
}

function fillSelect(id, values) {
  var s = $(id);
  values.forEach(function (v) { s.appendChild(el('option', { value: v }, v)); });
}

function unique(list) {
  return Array.from(new Set(list)).sort();
}

function setup() {
  fillSelect('f-namespace', unique(model.rows.map(function (r) { return r.ns; })));
  fillSelect('f-workload', model.rows.map(function (r) { return r.id; }).sort());
  var ids = [];
  model.cols.forEach(function (c) { c.members.forEach(function (m) { ids.push(m.id); }); });
  fillSelect('f-client', unique(ids));
  if (model.change) { $('f-changed-label').hidden = false; }
  var on = function (id, ev, f) { $(id).addEventListener(ev, function (e) { f(e); render(); }); };
  on('f-namespace', 'change', function (e) { state.ns = e.target.value; });
  on('f-workload', 'change', function (e) { state.workload = e.target.value; });
  on('f-client', 'change', function (e) { state.client = e.target.value; });
  on('f-verdict', 'change', function (e) { state.verdict = e.target.value; });
  on('f-group', 'change', function (e) { state.group = e.target.value; state.open.clear(); });
  on('f-changed', 'change', function (e) { state.changedOnly = e.target.checked; });
  on('f-expand', 'click', function () { state.allOpen = true; state.open.clear(); });
  on('f-collapse', 'click', function () { state.allOpen = false; state.open.clear(); });
  var timer = 0;
  $('f-search').addEventListener('input', function (e) {
    clearTimeout(timer);
    timer = setTimeout(function () { state.search = e.target.value; render(); }, 120);
  });
  $('filters').addEventListener('submit', function (e) { e.preventDefault(); });
  $('matrix').addEventListener('click', onMatrixClick);
  $('explain-close').addEventListener('click', closeExplain);
  document.addEventListener('keydown', function (e) { if (e.key === 'Escape' && !$('explain').hidden) { closeExplain(); } });
  if (model.notes.length) {
    $('notes').hidden = false;
    model.notes.forEach(function (n) { $('notes-list').appendChild(el('li', null, n)); });
  }
  summary();
}

function summary() {
  var c = model.counts, t;
  var f = function (n) { return n.toLocaleString('en-US'); };
  t = f(model.rows.length) + ' destinations \u00d7 ' + f(model.cols.reduce(function (n, col) { return n + col.members.length; }, 0)) +
    ' clients in ' + f(model.cols.length) + ' client classes; ' + f(c.ALLOW) + ' pairs allowed, ' + f(c.DENY) + ' denied' +
    (c.none ? ', ' + f(c.none) + ' not judged' : '') + (c.shadow ? ', ' + f(c.shadow) + ' with a different shadow decision' : '') + '.';
  if (model.change) {
    t += ' Changed pairs: ' + f(c.opened) + ' opened, ' + f(c.closed) + ' closed, ' + f(c['rule-changed']) +
      ' with another deciding rule, ' + f(c['shadow-changed']) + ' with another shadow decision.';
  }
  $('summary').textContent = t;
  var legend = '\u2713 allowed, \u2717 denied, \u2013 not judged; a purple frame: the shadow decision differs.';
  if (model.change) { legend += ' Changes: + opened, \u2212 closed, ~ other deciding rule, s other shadow decision.'; }
  $('legend').textContent = legend + ' Select a cell (Tab, Enter) for the explanation.';
}

// shortName is what a column header has room for: the workload's name
// (its namespace goes below), else the client's ID.
function shortName(m) {
  var w = m.peer.name || m.peer.workload || '';
  if (m.kind === 'workload' && w) { return w.slice(w.lastIndexOf('/') + 1); }
  return m.id;
}

function head(cols) {
  var thead = $('matrix-head');
  thead.textContent = '';
  var kinds = el('tr'), names = el('tr');
  kinds.appendChild(el('th', { scope: 'col', rowspan: '2' }, 'destination \\ client'));
  var last = null, span = null;
  cols.forEach(function (c) {
    if (c.kind !== last) {
      span = el('th', { scope: 'colgroup' }, KIND_LABELS[c.kind] || c.kind);
      span.n = 0;
      kinds.appendChild(span);
      last = c.kind;
    }
    span.n += 1;
    span.colSpan = span.n;
    var th = el('th', { scope: 'col', title: c.members.slice(0, 30).map(function (m) { return m.id; }).join('\n') });
    var b = el('button', { type: 'button', className: 'head', 'data-col': c.index, 'aria-label': c.rep.id + (c.members.length > 1 ? ' and ' + (c.members.length - 1) + ' more' : '') }, shortName(c.rep));
    if (c.rep.peer.namespace) { b.appendChild(el('small', null, c.rep.peer.namespace)); }
    if (c.members.length > 1) { b.appendChild(el('small', null, '+' + (c.members.length - 1) + ' alike')); }
    th.appendChild(b);
    names.appendChild(th);
  });
  thead.appendChild(kinds);
  thead.appendChild(names);
  // Fixed column widths: the browser lays the table out from them instead of
  // measuring every cell, which keeps a large map fast to draw and to open.
  var table = $('matrix'), cg = table.querySelector('colgroup');
  if (cg) { table.removeChild(cg); }
  cg = el('colgroup');
  cg.appendChild(el('col', { className: 'c-dest' }));
  cols.forEach(function () { cg.appendChild(el('col', { className: 'c-cell' })); });
  table.insertBefore(cg, thead);
  table.style.width = (16 + 7.5 * cols.length) + 'rem';
}

function decorate(td, c, dim) {
  var cls = 'v-' + c.verdict;
  if (c.shadow) { cls += ' shadow'; }
  if (c.change) { cls += ' ch-' + c.change.kind; }
  if (dim) { cls += ' dim'; }
  td.className = cls;
  td.setAttribute('data-verdict', c.verdict);
  if (c.change) { td.setAttribute('data-change', c.change.kind); }
}

function cellTD(r, c, dim) {
  var td = el('td', { 'data-r': r.index, 'data-c': c.col.index, 'data-dest': r.id, 'data-client': c.col.rep.id });
  decorate(td, c, dim);
  if (state.selected && state.selected.row === r && state.selected.col === c.col) { td.className += ' selected'; }
  var text = SYMBOL[c.verdict] + (c.change ? ' ' + CHANGE_MARK[c.change.kind] : '');
  var label = r.id + ' from ' + c.col.rep.id + (c.col.members.length > 1 ? ' and ' + (c.col.members.length - 1) + ' more' : '') +
    ': ' + c.verdict + (c.shadow ? ', shadow ' + c.answer.shadowDecision : '') + (c.change ? ', ' + c.change.kind : '');
  td.appendChild(el('button', { type: 'button', 'aria-label': label }, text));
  return td;
}

// aggregate is the group header's cell for one column: the verdict when every
// row of the group agrees, else the counts.
function aggregate(g, col, dim) {
  var n = { ALLOW: 0, DENY: 0, none: 0 }, changed = null, shadow = false, undimmed = false;
  g.rows.forEach(function (r) {
    var c = r.cells[col.index];
    n[c.verdict]++;
    if (c.change && !changed) { changed = c.change; }
    if (c.shadow) { shadow = true; }
    if (!dim(c)) { undimmed = true; }
  });
  var kinds = ['ALLOW', 'DENY', 'none'].filter(function (k) { return n[k] > 0; });
  var td = el('td', { 'data-group': g.key, 'data-c': col.index });
  td.className = (kinds.length === 1 ? 'v-' + kinds[0] : 'v-mixed') + (shadow ? ' shadow' : '') +
    (changed ? ' ch-' + changed.kind : '') + (undimmed ? '' : ' dim');
  var text = kinds.length === 1 ? SYMBOL[kinds[0]] : kinds.map(function (k) { return SYMBOL[k] + n[k]; }).join(' ');
  td.appendChild(el('button', { type: 'button', 'aria-label': g.label + ' from ' + col.rep.id + ': ' + kinds.map(function (k) { return n[k] + ' ' + k; }).join(', ') }, text));
  return td;
}

// isOpen: a group the user opened or closed stays so; otherwise "expand all" and
// "collapse all" decide, and before either, groups are open when the rows the
// filters leave are few enough to draw at once.
function isOpen(g) {
  if (state.open.has(g.key)) { return state.open.get(g.key); }
  if (state.allOpen !== null) { return state.allOpen; }
  return state.view.rows.length <= OPEN_LIMIT;
}

// groupBody is one group's tbody: its header row with the aggregate cells and,
// when open, its first rows.
function groupBody(g, v) {
  var tb = el('tbody', { 'data-group': g.key });
  var hr = el('tr', { className: 'group' });
  var th = el('th', { scope: 'rowgroup' });
  var open = isOpen(g);
  th.appendChild(el('button', { type: 'button', className: 'toggle', 'aria-expanded': String(open), 'data-toggle': g.key }, open ? '\u25be' : '\u25b8'));
  th.appendChild(document.createTextNode(g.label + ' (' + g.rows.length + ')'));
  hr.appendChild(th);
  v.cols.forEach(function (col) { hr.appendChild(aggregate(g, col, v.dim)); });
  tb.appendChild(hr);
  if (!open) { return tb; }
  var limit = state.limit.get(g.key) || PAGE;
  g.rows.slice(0, limit).forEach(function (r) {
    var tr = el('tr');
    tr.appendChild(el('th', { scope: 'row' }, r.id));
    v.cols.forEach(function (col) { var c = r.cells[col.index]; tr.appendChild(cellTD(r, c, v.dim(c))); });
    tb.appendChild(tr);
  });
  if (g.rows.length > limit) {
    var more = el('tr', { className: 'more' });
    var td = el('td', { colspan: String(v.cols.length + 1) });
    td.appendChild(el('button', { type: 'button', 'data-more': g.key }, 'show ' + Math.min(PAGE, g.rows.length - limit) + ' more of ' + (g.rows.length - limit)));
    more.appendChild(td);
    tb.appendChild(more);
  }
  return tb;
}

function body(v) {
  var table = $('matrix');
  Array.from(table.tBodies).forEach(function (b) { table.removeChild(b); });
  state.groups = groupRows(model, v.rows, state.group);
  state.groups.forEach(function (g) { table.appendChild(groupBody(g, v)); });
  $('matrix-caption').textContent = v.rows.length + ' of ' + model.rows.length + ' destinations, ' + v.cols.length + ' of ' +
    model.cols.length + ' client classes shown' + (state.groups.length ? '' : ': no cell matches the filters');
}

// redraw draws one group again (opened, closed, or more rows), leaving the rest
// of the table alone, and puts the focus back on its toggle.
function redraw(key, focusToggle) {
  var g = state.groups.filter(function (x) { return x.key === key; })[0];
  var old = Array.from($('matrix').tBodies).filter(function (b) { return b.getAttribute('data-group') === key; })[0];
  if (!g || !old) { render(); return; }
  var tb = groupBody(g, state.view);
  old.parentNode.replaceChild(tb, old);
  if (focusToggle) { tb.querySelector('button[data-toggle]').focus(); }
}

function toggle(key) {
  var g = state.groups.filter(function (x) { return x.key === key; })[0];
  if (g) { state.open.set(key, !isOpen(g)); }
}

function render() {
  var v = visible();
  state.view = v;
  head(v.cols);
  body(v);
}

function onMatrixClick(e) {
  var b = e.target.closest('button');
  if (!b) { return; }
  var key = b.getAttribute('data-toggle'), more = b.getAttribute('data-more'), col = b.getAttribute('data-col');
  var td = b.closest('td');
  if (key !== null) {
    toggle(key);
    redraw(key, true);
  } else if (more !== null) {
    state.limit.set(more, (state.limit.get(more) || PAGE) + PAGE);
    redraw(more, false);
  } else if (col !== null) {
    explainColumn(model.cols[Number(col)]);
  } else if (td && td.hasAttribute('data-r')) {
    var r = model.rows[Number(td.getAttribute('data-r'))];
    explainCell(r, r.cells[Number(td.getAttribute('data-c'))], b);
  } else if (td && td.hasAttribute('data-group')) {
    // A group's cell explains when every row of the group has the same answers
    // (one class); otherwise it opens the group.
    var g = state.groups.filter(function (x) { return x.key === td.getAttribute('data-group'); })[0];
    if (!g) { return; }
    if (g.rows.every(function (x) { return x.key === g.rows[0].key; })) {
      explainCell(g.rows[0], g.rows[0].cells[Number(td.getAttribute('data-c'))], b);
    } else if (!isOpen(g)) {
      toggle(g.key);
      redraw(g.key, false);
    }
  }
}
