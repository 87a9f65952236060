// The history of committed change sets (GET commits, docs/adr/0021-history-and-rollback.md), newest
// first: number, when, who from which interface, the VRs touched, its diff on demand; and for an
// operator the rollback to one, confirmed first, the service's refusal shown as it says it. A
// tenant's user gets its tenant's commits alone from the API, and rolls back only those.
import { api } from './api.js';
import { store, subscribe } from './store.js';
import { confirmDialog, h, scrollBox, toast } from './ui.js';

/** How long a rollback is waited for before it is answered as accepted. */
const ROLLBACK_WAIT = '30s';

/**
 * Shows a commit's diff button's words (what it shows) and its name for screen readers, which starts
 * with the words and says of which commit.
 */
function labelDiff(button, number, c) {
  const n = c ? c.changes.length : 0;
  button.textContent = c ? n + (n === 1 ? ' change' : ' changes') : 'Hide';
  button.setAttribute('aria-label', button.textContent + (c ? ' of commit ' : ' the changes of commit ') + number);
  return button;
}

export function renderHistory(view) {
  document.title = 'History · vrouter';
  const canWrite = store.canWrite();
  const rows = h('tbody');
  const refused = h('p.alert', { role: 'alert', hidden: true });
  const columns = ['Commit', 'When', 'Who', 'Interface', 'VRs', 'Changes', canWrite ? 'Actions' : null].filter(Boolean);
  view.append(
    h('div.page-head', {}, h('div', {}, h('h1', {}, 'History'),
      h('p.summary', {}, 'The committed change sets, newest first, from every interface. Rolling back to one brings'
        + ' the VRs back to what they were after it, as one new commit, or changes nothing when any part cannot be done.'))),
    refused,
    h('section.card', { 'aria-labelledby': 'h-commits' }, h('h2', { id: 'h-commits' }, 'Commits'),
      scrollBox('Commits', h('table.grid.commits', {}, h('caption.visually-hidden', {}, 'Committed change sets, newest first'),
        h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c)))), rows))));

  /** Which commits' diffs are open, kept across redraws. */
  const open = new Set();
  let latest = null;

  function who(c) {
    const by = c.changedBy || {};
    return [by.user || '—', by.tenant ? ' (' + by.tenant + ')' : '', by.source ? h('span.muted', {}, ' from ' + by.source) : null];
  }

  function vrLinks(c) {
    return c.vrs.flatMap((v, i) => [i ? ', ' : '',
      store.vrs.has(v.vmIndex) ? h('a', { href: '#/vr/' + v.vmIndex }, v.vmName) : v.vmName]);
  }

  /** What a commit was besides its changes: a rollback, or undone since. */
  function note(c) {
    return [c.rollbackTo != null ? h('span.pill.pill-busy', {}, 'rollback to ' + c.rollbackTo) : null,
      c.undone ? h('span.pill.pill-bad', { title: c.undone }, 'undone: ' + c.undone) : null];
  }

  function commitRow(c) {
    const diffId = 'diff-' + c.number;
    const toggle = labelDiff(h('button.btn.btn-small', { type: 'button', 'aria-expanded': String(open.has(c.number)),
      'aria-controls': diffId, onclick: () => toggleDiff(c.number) }), c.number, open.has(c.number) ? null : c);
    const row = h('tr', { dataset: { commit: c.number } },
      h('td.num', {}, c.number), h('td.mono', {}, new Date(c.time).toLocaleString()), h('td', {}, who(c)),
      h('td', {}, (c.changedBy || {}).interface || '—'), h('td', {}, vrLinks(c), note(c)), h('td', {}, toggle),
      canWrite ? h('td', {}, c.number === latest ? h('span.muted', {}, 'current')
        : h('button.btn.btn-small', { type: 'button', 'data-action': 'rollback', onclick: () => rollback(c),
          'aria-label': 'Roll back to commit ' + c.number }, 'Roll back')) : null);
    // An open diff stays open across redraws, drawn from the list's copy.
    const diff = h('tr.diff-row', { id: diffId, hidden: !open.has(c.number) },
      h('td', { colspan: columns.length }, open.has(c.number) ? diffTable(c) : null));
    return [row, diff];
  }

  /** Opens or closes a commit's diff in place (a redraw would take the focus from its button). */
  async function toggleDiff(number) {
    const diff = document.getElementById('diff-' + number);
    const button = rows.querySelector(`tr[data-commit="${number}"] [aria-controls]`);
    const shown = (c) => {
      diff.hidden = !c;
      diff.querySelector('td').replaceChildren(c ? diffTable(c) : '');
      button.setAttribute('aria-expanded', String(!!c));
      labelDiff(button, number, c ? null : commits.find((x) => x.number === number));
    };
    if (open.delete(number)) return shown(null);
    open.add(number);
    // On demand: the one commit, as the server has it now.
    try {
      shown(await api('GET', 'commits/' + number));
    } catch (problem) {
      open.delete(number);
      toast('Commit ' + number + ': ' + problem.message, 'error');
    }
  }

  function diffTable(c) {
    const names = new Map(c.vrs.map((v) => [v.vmIndex, v.vmName]));
    const value = (v) => (v === null || v === undefined ? h('span.muted', {}, 'absent') : String(v));
    return h('table.grid.diff', {}, h('caption.visually-hidden', {}, 'The leaf changes of commit ' + c.number),
      h('thead', {}, h('tr', {}, ['VR', 'Where', 'Leaf', 'Before', 'After'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, c.changes.map((l) => h('tr', {},
        h('td', {}, names.get(l.vmIndex) || 'VR ' + l.vmIndex),
        h('td', {}, l.networkIndex != null ? 'interface ' + l.networkIndex : l.table),
        h('td.mono', {}, l.leaf), h('td.mono', { 'data-before': '' }, value(l.before)), h('td.mono', { 'data-after': '' }, value(l.after))))));
  }

  let commits = [];
  function draw() {
    latest = commits.length ? commits[commits.length - 1].number : null;
    const newestFirst = [...commits].reverse();
    rows.replaceChildren(...(newestFirst.length ? newestFirst.flatMap(commitRow)
      : [h('tr', {}, h('td.muted', { colspan: columns.length }, 'No commit yet.'))]));
  }

  async function refresh() {
    try {
      commits = await api('GET', 'commits');
      draw();
    } catch (problem) {
      refused.hidden = false;
      refused.textContent = 'The history cannot be read: ' + problem.message;
    }
  }

  async function rollback(c) {
    const ok = await confirmDialog({ title: `Roll back to commit ${c.number}?`, confirm: 'Roll back',
      text: `Every change committed after commit ${c.number} that you can see is undone, as one new commit;`
        + ' VRs made since are deleted and VRs deleted since are made again. If any part cannot be done, nothing changes.' });
    if (!ok) return;
    refused.hidden = true;
    try {
      const done = await api('POST', `commits/${c.number}/rollback?wait=${ROLLBACK_WAIT}`);
      toast(`Rolled back to commit ${c.number}: commit ${done.commit}.`);
    } catch (problem) {
      refused.hidden = false;
      refused.textContent = `Rollback to commit ${c.number} refused: ${problem.message}`;
    }
    refresh();
  }

  // A change from anywhere is a new commit: read the history again, once per burst of events.
  let soon = null;
  const unsubscribe = subscribe((change) => {
    if (change.kind !== 'event' && change.kind !== 'live') return;
    if (!soon) soon = setTimeout(() => { soon = null; refresh(); }, 300);
  });
  refresh();
  return () => {
    if (soon) clearTimeout(soon);
    unsubscribe();
  };
}
