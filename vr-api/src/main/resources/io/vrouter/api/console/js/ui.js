// Small DOM helpers shared by the views. Text always goes in as text (textContent), never as HTML.

/** h('a.link', {href: '#/'}, 'text', child...): an element with classes, attributes and children. */
export function h(tag, attrs, ...children) {
  const [name, ...classes] = tag.split('.');
  const el = document.createElement(name);
  if (classes.length) el.className = classes.join(' ');
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

/** An SVG element (for the topology). */
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  append(el, children);
  return el;
}

/** A test of VR names for a filter: a case-blind substring, or a glob when it has "*" (as the API's name=). */
export function nameMatcher(filter) {
  const f = filter.trim().toLowerCase();
  if (!f) return () => true;
  if (!f.includes('*')) return (name) => (name || '').toLowerCase().includes(f);
  const glob = new RegExp('^' + f.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
  return (name) => glob.test((name || '').toLowerCase());
}

const TRANSITIONAL = new Set(['preparing', 'suspending', 'resuming', 'migrating', 'shuttingdown']);

/** The colour family of an oper state (the text is always shown beside the colour). */
export function stateTone(state) {
  if (state === 'running') return 'ok';
  if (state === 'crashed') return 'bad';
  if (state === 'paused' || state === 'suspended') return 'held';
  if (TRANSITIONAL.has(state)) return 'busy';
  return 'off';
}

export function statePill(state) {
  const s = state || 'unknown';
  return h('span.pill.pill-' + stateTone(s), { 'data-state': s }, h('span.dot', { 'aria-hidden': 'true' }), s);
}

export function formatUptime(seconds) {
  if (seconds === null || seconds === undefined) return '—';
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86400);
  const hh = String(Math.floor((s % 86400) / 3600)).padStart(2, '0');
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return (d ? d + 'd ' : '') + hh + ':' + mm + ':' + ss;
}

export function formatMiB(mib) {
  if (mib === null || mib === undefined) return '—';
  return mib >= 1024 && mib % 1024 === 0 ? mib / 1024 + ' GiB' : mib + ' MiB';
}

export function formatNumber(n) {
  return n === null || n === undefined ? '—' : Number(n).toLocaleString('en');
}

export function formatBytes(n) {
  if (n === null || n === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = Number(n);
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return (i ? v.toFixed(1) : v) + ' ' + units[i];
}

/**
 * A table in a box of its own that scrolls sideways when the table is wider than the page (a phone),
 * focusable so that a keyboard can scroll it too.
 */
export function scrollBox(label, table) {
  return h('div.table-scroll', { role: 'region', 'aria-label': label, tabindex: '0' }, table);
}

/** Says something to screen readers (the polite live region). */
export function announce(text) {
  const region = document.getElementById('announce');
  region.textContent = '';
  setTimeout(() => (region.textContent = text), 50);
}

/** A short message in the corner: 'ok' or 'error'. */
export function toast(text, tone = 'ok') {
  const box = h('div.toast.toast-' + tone, { role: tone === 'error' ? 'alert' : 'status' }, text);
  document.getElementById('toasts').append(box);
  setTimeout(() => box.remove(), tone === 'error' ? 8000 : 4000);
}

/** A modal question; resolves true when confirmed. Focus starts on Cancel and returns where it was. */
export function confirmDialog({ title, text, confirm, danger = true }) {
  return new Promise((resolve) => {
    const back = document.activeElement;
    const cancelButton = h('button.btn', { type: 'button', value: 'cancel' }, 'Cancel');
    const confirmButton = h('button.btn.' + (danger ? 'btn-danger' : 'btn-primary'), { type: 'button', value: 'ok' }, confirm);
    const dialog = h('dialog.dialog', { 'aria-labelledby': 'dialog-title', 'aria-describedby': 'dialog-text' },
      h('h2', { id: 'dialog-title' }, title),
      h('p', { id: 'dialog-text' }, text),
      h('div.dialog-actions', {}, cancelButton, confirmButton));
    const close = (answer) => {
      dialog.close();
      dialog.remove();
      if (back && back.focus) back.focus();
      resolve(answer);
    };
    cancelButton.addEventListener('click', () => close(false));
    confirmButton.addEventListener('click', () => close(true));
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      close(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancelButton.focus();
  });
}

/**
 * Shows a refused request's problem details on a form: next to the input named by the problem's
 * field (data-field), else in the form's summary. Returns the element the message went to.
 */
export function showProblem(form, problem) {
  clearProblems(form);
  const summary = form.querySelector('.form-summary');
  const inputs = problem.field ? [...form.querySelectorAll(`[data-field="${problem.field}"]`)] : [];
  // Of several inputs for the field (one per interface row), the one whose value the detail quotes.
  const input = inputs.find((i) => i.value && problem.message.includes(`'${i.value}'`)) || inputs[0];
  if (input) {
    const message = document.getElementById(input.getAttribute('aria-describedby').split(' ')[0]);
    message.textContent = problem.message;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
    if (summary) summary.textContent = 'The server refused this: see ' + (input.labels[0]?.textContent || problem.field) + '.';
    return message;
  }
  if (summary) {
    summary.textContent = problem.message + (problem.field ? ` (${problem.field})` : '');
    summary.focus();
  }
  return summary;
}

export function clearProblems(form) {
  for (const m of form.querySelectorAll('.field-error')) m.textContent = '';
  for (const i of form.querySelectorAll('[aria-invalid]')) i.removeAttribute('aria-invalid');
  const summary = form.querySelector('.form-summary');
  if (summary) summary.textContent = '';
}

let fieldIds = 0;
/**
 * A labelled input with its error slot: the input has data-field (the API's name) for problem details.
 * With options, a select: each option a value or [value, text].
 */
export function field({ label, name, type = 'text', value = '', hint, attrs = {}, options }) {
  const id = 'f' + ++fieldIds;
  const errorId = id + '-error';
  const hintId = hint ? id + '-hint' : null;
  const common = { id, name, 'data-field': name, 'aria-describedby': [errorId, hintId].filter(Boolean).join(' '), ...attrs };
  let input;
  if (options) {
    // An option is its value, or [value, text].
    input = h('select', common, options.map((o) => {
      const [v, text] = Array.isArray(o) ? o : [o, o];
      return h('option', { value: v, selected: String(v) === String(value) }, text);
    }));
  } else if (type === 'checkbox') {
    input = h('input', { ...common, type, checked: !!value });
  } else {
    input = h('input', { ...common, type, value });
  }
  return h('div.field' + (type === 'checkbox' ? '.field-check' : ''), {},
    type === 'checkbox' ? [input, h('label', { for: id }, label)] : [h('label', { for: id }, label), input],
    hint ? h('p.hint', { id: hintId }, hint) : null,
    h('p.field-error', { id: errorId }));
}
