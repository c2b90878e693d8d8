// explain.js fills the explanation panel with what `meshguard check` answers
// for a cell (in a change, before and after), and starts the page.

var lastFocus = null;

function itemWords(it) {
  if (!it) { return ''; }
  var s = (it.kind ? it.kind + ' ' : '') + it.policy + (it.path ? ' ' + it.path : '');
  var what = [it.action, it.match].filter(Boolean).join(' ');
  return what ? s + ' (' + what + ')' : s;
}

function place(it) { return it && it.file ? it.file + (it.line ? ':' + it.line : '') : ''; }

function dlRow(dl, term, value, field) {
  if (value === undefined || value === null || value === '') { return; }
  dl.appendChild(el('dt', null, term));
  var dd = el('dd', field ? { 'data-field': field } : null);
  if (value instanceof Node) { dd.appendChild(value); } else { dd.textContent = String(value); }
  dl.appendChild(dd);
}

function tag(v) { return el('span', { className: 'tag ' + v }, v); }

function list(parent, tagName, title, field, items, words) {
  if (!items || !items.length) { return; }
  parent.appendChild(el('h3', null, title));
  var l = el(tagName, { 'data-field': field });
  items.forEach(function (x) { l.appendChild(el('li', null, words(x))); });
  parent.appendChild(l);
}

// answerSection is one answer as check's text output says it: the verdict, the
// deciding item and where it is written, the shadow decision, the merged chain.
function answerSection(a, title, side) {
  var sec = el('section', { 'data-side': side });
  if (title) { sec.appendChild(el('h3', null, title)); }
  if (!a) {
    sec.appendChild(el('p', { 'data-field': 'decision' }, 'not judged (the pair is not in this map)'));
    return sec;
  }
  var dl = el('dl');
  dlRow(dl, 'decision', tag(a.decision), 'decision');
  if (a.shadowDecision) { dlRow(dl, 'shadow decision', tag(a.shadowDecision), 'shadow-decision'); }
  dlRow(dl, 'decided by', itemWords(a.decidedBy), 'decided-by');
  dlRow(dl, 'written at', place(a.decidedBy), 'location');
  if (a.decidedBy && a.decidedBy.authentication) {
    var au = a.decidedBy.authentication;
    dlRow(dl, 'authentication', itemWords(au) + (place(au) ? '  ' + place(au) : ''), 'authentication');
  }
  if (a.shadowDecidedBy) {
    var same = JSON.stringify(a.shadowDecidedBy) === JSON.stringify(a.decidedBy);
    dlRow(dl, 'shadow decided by', same ? 'the same item' : itemWords(a.shadowDecidedBy) + '  ' + place(a.shadowDecidedBy), 'shadow-decided-by');
  }
  if (a['default']) { dlRow(dl, 'default', 'no policy applies: the mesh\u2019s default decides', 'default'); }
  if (a.filter && a.filter !== 'none') { dlRow(dl, 'filter', 'Envoy ' + a.filter + ' RBAC' + (a.form ? ' (' + a.form + ' form)' : ''), 'filter'); }
  dlRow(dl, 'server', a.server, 'server');
  dlRow(dl, 'route', a.route, 'route');
  if (a.meshIdentity) { dlRow(dl, 'identity', itemWords(a.meshIdentity) + ' (only rules policies are programmed)', 'identity'); }
  sec.appendChild(dl);
  list(sec, 'ol', 'Merged policies, least specific first', 'merged', a.merged, function (it) {
    return (it.kind ? it.kind + ' ' : '') + it.policy + (place(it) ? '  ' + place(it) : '');
  });
  list(sec, 'ol', 'Authorizations considered, in order', 'considered', a.considered, String);
  list(sec, 'ul', 'Notes', 'notes', a.notes, String);
  return sec;
}

function members(parent, title, items) {
  var d = el('details');
  d.appendChild(el('summary', null, title + ' (' + items.length + ')'));
  var ul = el('ul');
  items.slice(0, 100).forEach(function (id) { ul.appendChild(el('li', null, id)); });
  if (items.length > 100) { ul.appendChild(el('li', null, '\u2026 and ' + (items.length - 100) + ' more')); }
  d.appendChild(ul);
  parent.appendChild(d);
}

function openPanel(title, opener) {
  lastFocus = opener || null;
  $('explain-title').textContent = title;
  $('explain').hidden = false;
  $('explain-title').focus();
}

function markSelected(r, col) {
  Array.from(document.querySelectorAll('td.selected')).forEach(function (td) { td.classList.remove('selected'); });
  state.selected = col ? { row: r, col: col } : null;
  if (!col) { return; }
  var td = document.querySelector('td[data-r="' + r.index + '"][data-c="' + col.index + '"]');
  if (td) { td.classList.add('selected'); }
}

// explainCell shows the answer of row r and column col (cell c).
function explainCell(r, col, c, opener) {
  var b = $('explain-body');
  b.textContent = '';
  b.appendChild(el('p', { 'data-field': 'pair' }, r.id + ' called by ' + col.rep.id));
  var rows = r.cls.rows;
  b.appendChild(el('p', null, 'The same answer holds for ' + rows.length + ' destination' + (rows.length === 1 ? '' : 's') +
    ' \u00d7 ' + col.members.length + ' client' + (col.members.length === 1 ? '' : 's') + ' (one class each).'));
  if (model.change) {
    b.appendChild(el('p', { 'data-field': 'change' }, c.change ? 'Change: ' + CHANGE_WORDS[c.change.kind] : 'Unchanged.'));
    b.appendChild(answerSection(c.answer, 'Now', 'new'));
    b.appendChild(answerSection(c.old, 'Before', 'old'));
  } else {
    b.appendChild(answerSection(c.answer, null, 'new'));
  }
  members(b, 'Destinations of this class', rows.map(function (r) { return r.id; }));
  members(b, 'Clients of this column', col.members.map(function (m) { return m.id; }));
  markSelected(r, col);
  openPanel('Explanation', opener);
}

function explainColumn(col) {
  var b = $('explain-body');
  b.textContent = '';
  b.appendChild(el('p', null, 'Every client of this column gets the same answer from every destination (' +
    (KIND_LABELS[col.kind] || col.kind) + ').'));
  var ul = el('ul', { 'data-field': 'clients' });
  col.members.forEach(function (m) {
    var who = m.peer.spiffeId || m.peer.identity || (m.peer.uriSANs || []).join(', ') || m.peer.ip || '';
    ul.appendChild(el('li', null, m.id + (who ? '  ' + who : '')));
  });
  b.appendChild(ul);
  markSelected(null, null);
  openPanel('Client class: ' + col.rep.id, document.activeElement);
}

function closeExplain() {
  $('explain').hidden = true;
  markSelected(null, null);
  if (lastFocus && document.body.contains(lastFocus)) { lastFocus.focus(); }
}

setup();
render();
// Force style and layout, so that the time below includes drawing the matrix.
void $('matrix').offsetHeight;
document.body.setAttribute('data-ready-ms', String(Math.round(performance.now())));
document.body.setAttribute('data-ready', 'true');
