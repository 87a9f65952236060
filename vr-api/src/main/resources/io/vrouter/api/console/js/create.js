// Create a VR: the form sends what the operator typed, nothing checked here; what the server refuses
// comes back as problem details, shown next to the field they name.
import { api } from './api.js';
import { store } from './store.js';
import { clearProblems, field, h, showProblem, toast } from './ui.js';

export function renderCreate(view) {
  document.title = 'Create a VR · vrouter';
  if (!store.canWrite()) {
    view.append(h('h1', {}, 'Create a VR'),
      h('p.alert', { role: 'alert' }, `User '${store.session.user}' may only read: creating a VR needs the operator role.`));
    return null;
  }
  const templates = store.session.templates || [];
  const interfaceRows = h('div.if-rows');
  const form = h('form.card.form', { novalidate: true, 'aria-labelledby': 'create-title' },
    h('p.form-summary', { role: 'alert', tabindex: '-1' }),
    h('fieldset', {}, h('legend', {}, 'The VR'),
      h('div.form-grid', {},
        field({ label: 'Name', name: 'vmName', hint: 'Letters, digits, ".", "_" or "-"; unique on this host.',
          attrs: { required: true, autocomplete: 'off', spellcheck: 'false' } }),
        templates.length > 1
          ? field({ label: 'Template', name: 'vmConfigTemplate', options: templates, value: templates[0] })
          : field({ label: 'Template', name: 'vmConfigTemplate', value: templates[0] || '', attrs: { readonly: true } }),
        field({ label: 'Virtual CPUs', name: 'vmConfigCpuNumber', type: 'number', value: '1', attrs: { min: 1, max: 64 } }),
        field({ label: 'Memory (MiB)', name: 'vmConfigMemory', type: 'number', value: '512', attrs: { min: 64, step: 64 } }),
        field({ label: 'Index', name: 'vmIndex', type: 'number', hint: 'Empty: the next free one.', attrs: { min: 1 } }),
        field({ label: 'Description', name: 'vmConfigDescription', hint: 'Optional free text, up to 255 octets of UTF-8.',
          attrs: { autocomplete: 'off' } })),
      h('div.form-grid', {},
        field({ label: 'Start it once created', name: 'start', type: 'checkbox', value: true }),
        field({ label: 'Start with the host (auto-start)', name: 'vmConfigAutoStart', type: 'checkbox', value: false }))),
    h('fieldset', {}, h('legend', {}, 'Interfaces'),
      interfaceRows,
      h('button.btn.btn-small', { type: 'button', onclick: () => addRow(true) }, 'Add an interface')),
    h('div.form-actions', {},
      h('button.btn.btn-primary', { type: 'submit' }, 'Create VR'),
      h('a.btn', { href: '#/' }, 'Cancel')));

  function addRow(focus) {
    const n = interfaceRows.children.length + 1;
    const row = h('div.form-row.if-row', { role: 'group', 'aria-label': 'Interface ' + n },
      field({ label: 'Network', name: 'vmNetworkConfigParent', attrs: { placeholder: 'xenbr0' } }),
      field({ label: 'Address', name: 'vmNetworkConfigAddress', attrs: { placeholder: '192.0.2.1' } }),
      field({ label: 'Prefix', name: 'vmNetworkConfigPrefixLength', type: 'number', attrs: { min: 0, max: 128 } }),
      field({ label: 'MAC', name: 'vmNetworkConfigPhysAddress', attrs: { placeholder: 'generated' } }),
      h('div.field.field-submit', {}, h('button.btn.btn-small.btn-quiet', { type: 'button',
        'aria-label': 'Remove interface ' + n, onclick: () => row.remove() }, 'Remove')));
    interfaceRows.append(row);
    if (focus) row.querySelector('input').focus();
  }

  function request() {
    const value = (name) => form.querySelector(`[name="${name}"]`);
    const vr = { vmName: value('vmName').value.trim() };
    for (const name of ['vmConfigCpuNumber', 'vmConfigMemory', 'vmIndex']) {
      if (value(name).value !== '') vr[name] = Number(value(name).value);
    }
    if (value('vmConfigTemplate').value) vr.vmConfigTemplate = value('vmConfigTemplate').value;
    if (value('vmConfigDescription').value.trim()) vr.vmConfigDescription = value('vmConfigDescription').value.trim();
    vr.vmConfigAutoStart = value('vmConfigAutoStart').checked;
    vr.vmAdminState = value('start').checked ? 'running' : 'shutdown';
    const rows = [...interfaceRows.children].map((row) => {
      const n = {};
      for (const input of row.querySelectorAll('[data-field]')) {
        if (input.value.trim() !== '') n[input.name] = input.type === 'number' ? Number(input.value) : input.value.trim();
      }
      return n;
    }).filter((n) => Object.keys(n).length);
    if (rows.length) vr.vmNetworkConfigTable = rows;
    return vr;
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearProblems(form);
    const submit = form.querySelector('[type=submit]');
    submit.disabled = true;
    try {
      const created = await api('POST', 'routers', request());
      toast(`${created.vmName} accepted (vmIndex ${created.vmIndex}).`);
      location.hash = '#/vr/' + created.vmIndex;
    } catch (problem) {
      showProblem(form, problem);
    } finally {
      submit.disabled = false;
    }
  });

  view.append(h('nav.crumbs', { 'aria-label': 'Breadcrumb' }, h('a', { href: '#/' }, 'Virtual routers'),
    h('span', { 'aria-hidden': 'true' }, ' / '), h('span', { 'aria-current': 'page' }, 'Create')),
  h('div.page-head', {}, h('div', {}, h('h1', { id: 'create-title' }, 'Create a VR'),
    h('p.summary', {}, 'Accepted at once; the VR then turns running (or shutdown) as the hypervisor works.'))),
  form);
  addRow(false);
  return null;
}
