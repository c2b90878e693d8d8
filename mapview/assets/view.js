// view.js draws the model as a table: client columns grouped by kind (and,
// when there are more than COL_LIMIT, by namespace, closed groups drawn as one
// column of aggregates, COL_PAGE columns of an open group at a time), rows
// grouped by namespace or class (collapsed when the map is large, and at most
// PAGE rows drawn per group until asked for more), the filters, and the
// explanation panel. Every name from the map is written with textContent, never
// parsed as markup.

var PAGE = 200;
var OPEN_LIMIT = 150;
var COL_LIMIT = 60;
var COL_PAGE = 40;
var GROUP_PAGE = 100;
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
  open: new Map(), limit: new Map(), allOpen: null, selected: null, groupLimit: 0,
  colOpen: new Map(), colLimit: new Map()
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
// matches. A row is kept when a kept column has a cell not dimmed, found from
// its class's default and exceptions (summarize), not column by column.
function visible() {
  var q = state.search.trim().toLowerCase();
  var rowHit = function (r) { return r.text.indexOf(q) >= 0 || r.ns.toLowerCase().indexOf(q) >= 0; };
  var colHit = function (c) { return c.text.indexOf(q) >= 0; };
  var anyRowHit = !!q && model.rows.some(rowHit);
  var anyColHit = !!q && !anyRowHit && model.cols.some(colHit);
  var byPolicy = !!q && !anyRowHit && !anyColHit;
  var byClient = state.client ? model.colByClient.get(state.client) : null;
  var cols = model.cols.filter(function (c) {
    if (state.client && c !== byClient) { return false; }
    if (state.changedOnly && !c.changed) { return false; }
    return !anyColHit || colHit(c);
  });
  var v = {
    cols: cols, sums: new Map(), grouped: cols.length > COL_LIMIT,
    dim: function (c) {
      return !cellMatches(c) || (byPolicy && c.policies.indexOf(q) < 0) || (state.changedOnly && !c.change);
    }
  };
  v.colGroups = v.grouped ? groupCols(cols) : [{ key: '', index: 0, cols: cols }];
  v.groupOf = new Array(model.cols.length);
  v.colGroups.forEach(function (g) { g.cols.forEach(function (c) { v.groupOf[c.index] = g.index; }); });
  var dims = state.verdict !== '' || byPolicy || state.changedOnly;
  v.rows = model.rows.filter(function (r) {
    if (state.ns && r.ns !== state.ns) { return false; }
    if (state.workload && r.id !== state.workload) { return false; }
    if (anyRowHit && !rowHit(r)) { return false; }
    if (model.cols.length === 0) { return true; }
    return cols.length > 0 && (!dims || summarize(v, r.cls).any);
  });
  v.items = drawnItems(v);
  return v;
}

// fillSelect adds the options in one insertion (new Option sets text, not
// markup): the workload and client lists of a large map have thousands.
function fillSelect(id, values) {
  var f = document.createDocumentFragment();
  values.forEach(function (v) { f.appendChild(new Option(v, v)); });
  $(id).appendChild(f);
}

function unique(list) {
  return Array.from(new Set(list)).sort();
}

// LAZY_OPTIONS: a select with more options than this is filled when first
// focused or pressed (before its list opens), not on load: the browser
// measures every option to size the select, which for the thousands of
// workloads and clients of a large map was a third of the time to interactive.
var LAZY_OPTIONS = 500;

function lazySelect(id, count, values) {
  if (count <= LAZY_OPTIONS) {
    fillSelect(id, values());
    return;
  }
  var s = $(id), filled = false;
  var fill = function () {
    if (filled) { return; }
    filled = true;
    fillSelect(id, values());
  };
  ['focus', 'mousedown', 'keydown', 'touchstart'].forEach(function (ev) { s.addEventListener(ev, fill, true); });
}

function setup() {
  fillSelect('f-namespace', unique(model.rows.map(function (r) { return r.ns; })));
  lazySelect('f-workload', model.rows.length, function () { return model.rows.map(function (r) { return r.id; }).sort(); });
  lazySelect('f-client', model.colByClient.size, function () {
    var ids = [];
    model.cols.forEach(function (c) { c.members.forEach(function (m) { ids.push(m.id); }); });
    return unique(ids);
  });
  if (model.change) { $('f-changed-label').hidden = false; }
  var on = function (id, ev, f) { $(id).addEventListener(ev, function (e) { f(e); render(); }); };
  on('f-namespace', 'change', function (e) { state.ns = e.target.value; });
  on('f-workload', 'change', function (e) { state.workload = e.target.value; });
  on('f-client', 'change', function (e) { state.client = e.target.value; });
  on('f-verdict', 'change', function (e) { state.verdict = e.target.value; });
  on('f-group', 'change', function (e) { state.group = e.target.value; state.open.clear(); state.groupLimit = 0; });
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
  if (model.cols.length > COL_LIMIT) {
    legend += ' More than ' + COL_LIMIT + ' client classes: columns are grouped by namespace, closed; select a group or its cells to open it, or pick a client.';
  }
  $('legend').textContent = legend + ' Select a cell (Tab, Enter) for the explanation.';
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

function cellTD(r, col, c, dim) {
  var td = el('td', { 'data-r': r.index, 'data-c': col.index, 'data-dest': r.id, 'data-client': col.rep.id });
  decorate(td, c, dim);
  if (state.selected && state.selected.row === r && state.selected.col === col) { td.className += ' selected'; }
  var text = SYMBOL[c.verdict] + (c.change ? ' ' + CHANGE_MARK[c.change.kind] : '');
  var label = r.id + ' from ' + col.rep.id + (col.members.length > 1 ? ' and ' + (col.members.length - 1) + ' more' : '') +
    ': ' + c.verdict + (c.shadow ? ', shadow ' + c.answer.shadowDecision : '') + (c.change ? ', ' + c.change.kind : '');
  td.appendChild(el('button', { type: 'button', 'aria-label': label }, text));
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
  v.items.forEach(function (it) { hr.appendChild(groupCell(g, it, v)); });
  tb.appendChild(hr);
  if (!open) { return tb; }
  var limit = state.limit.get(g.key) || PAGE;
  g.rows.slice(0, limit).forEach(function (r) {
    var tr = el('tr');
    tr.appendChild(el('th', { scope: 'row' }, r.id));
    v.items.forEach(function (it) {
      if (!it.col) { tr.appendChild(rowGroupCell(r, it.group, v)); return; }
      var c = cellAt(r, it.col);
      tr.appendChild(cellTD(r, it.col, c, v.dim(c)));
    });
    tb.appendChild(tr);
  });
  if (g.rows.length > limit) {
    var more = el('tr', { className: 'more' });
    var td = el('td', { colspan: String(v.items.length + 1) });
    td.appendChild(el('button', { type: 'button', 'data-more': g.key }, 'show ' + Math.min(PAGE, g.rows.length - limit) + ' more of ' + (g.rows.length - limit)));
    more.appendChild(td);
    tb.appendChild(more);
  }
  return tb;
}

// body draws the row groups, at most groupLimit of them (GROUP_PAGE more on
// request): rows by class can make thousands of groups, each a header row.
function body(v) {
  var table = $('matrix');
  Array.from(table.tBodies).forEach(function (b) { table.removeChild(b); });
  state.groups = groupRows(model, v.rows, state.group);
  var limit = state.groupLimit || GROUP_PAGE;
  state.groups.slice(0, limit).forEach(function (g) { table.appendChild(groupBody(g, v)); });
  if (state.groups.length > limit) {
    var tb = el('tbody', { className: 'more-groups' }), tr = el('tr', { className: 'more' });
    var td = el('td', { colspan: String(v.items.length + 1) });
    td.appendChild(el('button', { type: 'button', 'data-moregroups': '' },
      'show ' + Math.min(GROUP_PAGE, state.groups.length - limit) + ' more of ' + (state.groups.length - limit) + ' groups'));
    tr.appendChild(td);
    tb.appendChild(tr);
    table.appendChild(tb);
  }
  $('matrix-caption').textContent = v.rows.length + ' of ' + model.rows.length + ' destinations, ' + v.cols.length + ' of ' +
    model.cols.length + ' client classes shown' + (v.grouped ? ' in ' + v.colGroups.length + ' column groups' : '') +
    (state.groups.length > limit ? '; the first ' + limit + ' of ' + state.groups.length + ' row groups drawn' : '') +
    (state.groups.length ? '' : ': no cell matches the filters');
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
  head(v);
  body(v);
}

function onMatrixClick(e) {
  var b = e.target.closest('button');
  if (!b) { return; }
  var key = b.getAttribute('data-toggle'), more = b.getAttribute('data-more'), col = b.getAttribute('data-col');
  var ckey = b.getAttribute('data-coltoggle'), cmore = b.getAttribute('data-colmore');
  var td = b.closest('td');
  if (key !== null) {
    toggle(key);
    redraw(key, true);
  } else if (more !== null) {
    state.limit.set(more, (state.limit.get(more) || PAGE) + PAGE);
    redraw(more, false);
  } else if (b.hasAttribute('data-moregroups')) {
    state.groupLimit = (state.groupLimit || GROUP_PAGE) + GROUP_PAGE;
    render();
  } else if (ckey !== null) {
    openColumns(ckey, state.colOpen.get(ckey) !== true);
  } else if (cmore !== null) {
    state.colLimit.set(cmore, (state.colLimit.get(cmore) || COL_PAGE) + COL_PAGE);
    openColumns(cmore, true);
  } else if (col !== null) {
    explainColumn(model.cols[Number(col)]);
  } else if (td && td.hasAttribute('data-colgroup')) {
    // A cell of a closed column group opens the group.
    openColumns(td.getAttribute('data-colgroup'), true);
  } else if (td && td.hasAttribute('data-r')) {
    var r = model.rows[Number(td.getAttribute('data-r'))], c = model.cols[Number(td.getAttribute('data-c'))];
    explainCell(r, c, cellAt(r, c), b);
  } else if (td && td.hasAttribute('data-group')) {
    groupClick(td, b);
  }
}

// groupClick: a group's cell explains when every row of the group has the
// same answers (one class); otherwise it opens the group.
function groupClick(td, b) {
  var g = state.groups.filter(function (x) { return x.key === td.getAttribute('data-group'); })[0];
  if (!g) { return; }
  if (g.classes.length === 1) {
    var c = model.cols[Number(td.getAttribute('data-c'))];
    explainCell(g.rows[0], c, cellAt(g.rows[0], c), b);
  } else if (!isOpen(g)) {
    toggle(g.key);
    redraw(g.key, false);
  }
}
