// Progressive enhancement for `git walrus web`: every page works without this file. Served from /static under a CSP
// that allows no inline script; it only ever sets text (textContent), never markup.
/* global document, fetch, setTimeout, location, history, window */
'use strict';

document.addEventListener('DOMContentLoaded', () => {
  // A README's ids carry a `user-content-` prefix (so that it cannot shadow the page's own elements); an address with
  // the bare id (`#install`, typed, bookmarked or linked from elsewhere) lands on the prefixed heading all the same.
  const landOnPrefixed = () => {
    let id;
    try {
      id = decodeURIComponent(location.hash.slice(1));
    } catch {
      return;
    }
    if (id === '' || document.getElementById(id)) return;
    document.getElementById(`user-content-${id}`)?.scrollIntoView();
  };
  window.addEventListener('hashchange', landOnPrefixed);
  landOnPrefixed();

  // The ref picker: its list filters as one types; Escape closes it and gives the focus back to its button. Arrow
  // keys are left alone (they scroll), so nothing is chosen until a link is followed or the form is sent.
  const picker = document.querySelector('details.ref-picker');
  if (picker) {
    const input = picker.querySelector('#ref-filter');
    const none = picker.querySelector('#ref-none');
    picker.addEventListener('toggle', () => { if (picker.open) input.focus(); });
    picker.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return;
      picker.open = false;
      picker.querySelector('summary').focus();
    });
    input.addEventListener('input', () => {
      const words = input.value.trim().toLowerCase();
      let shown = 0;
      for (const item of picker.querySelectorAll('#ref-list li')) {
        item.hidden = words !== '' && !(item.dataset.name || '').includes(words);
        if (!item.hidden) shown += 1;
      }
      none.hidden = shown > 0;
    });
  }

  // Numbered lines: #L12 marks a line, #L12-L20 a range; a click on a number with Shift held extends the mark.
  const lines = document.querySelector('table.code-lines');
  if (lines) {
    const mark = () => {
      for (const row of lines.querySelectorAll('tr.marked')) row.classList.remove('marked');
      const range = /^#L(\d+)(?:-L(\d+))?$/.exec(location.hash);
      if (!range) return;
      const from = Number(range[1]);
      const to = Number(range[2] || range[1]);
      for (let n = Math.min(from, to); n <= Math.max(from, to); n += 1) document.getElementById(`L${n}`)?.classList.add('marked');
      document.getElementById(`L${Math.min(from, to)}`)?.scrollIntoView({ block: 'center' });
    };
    lines.addEventListener('click', (event) => {
      const link = event.target.closest('td.line-no a');
      const first = /^#L(\d+)/.exec(location.hash);
      if (!link || !event.shiftKey || !first) return;
      event.preventDefault();
      const to = link.getAttribute('href').slice(2);
      history.replaceState(null, '', `#L${first[1]}-L${to}`);
      mark();
    });
    window.addEventListener('hashchange', mark);
    mark();
  }

  // The repositories list filters as one types.
  const filter = document.getElementById('repo-filter');
  if (filter) {
    filter.addEventListener('input', () => {
      const words = filter.value.trim().toLowerCase();
      for (const row of document.querySelectorAll('#repo-list .repo-row')) {
        row.hidden = words !== '' && !(row.dataset.filter || '').includes(words);
      }
    });
  }

  /** A push's badge and what it checked and found, as the server renders them, built from text only. */
  const showBadge = (badge, command) => {
    const element = document.querySelector(`.badge[data-seq="${badge.seq}"]`);
    if (!element) return;
    element.className = `badge ${badge.state}`;
    element.textContent = badge.text;
    const checks = element.closest('details')?.querySelector('.checks');
    if (!checks) return;
    const add = (parent, tag, text, className) => {
      const child = document.createElement(tag);
      if (text !== undefined) child.textContent = text;
      if (className) child.className = className;
      parent.append(child);
      return child;
    };
    checks.replaceChildren();
    add(checks, 'p', badge.state === 'unchecked' ? 'Checked at this view:' : 'Checked:');
    const list = add(checks, 'ul');
    for (const check of badge.checks) add(list, 'li', check);
    add(checks, 'p', badge.state === 'unchecked' ? 'Not yet checked: the pack’s bytes on Walrus and the history it brings. Run “Verify everything”, or:' : 'Repeat with:');
    add(checks, 'pre', command, 'command');
    if (badge.findings.length > 0) {
      add(checks, 'p', 'Found:');
      const found = add(checks, 'ul', undefined, 'findings');
      for (const finding of badge.findings) {
        const item = add(found, 'li');
        add(item, 'span', finding.code, 'mono');
        item.append(`: ${finding.message}`);
      }
    }
  };

  // The certification badge of the verify view (certified-badge.ts), redrawn from the status.
  const showCertified = (badge) => {
    const box = document.getElementById('certified-badge');
    if (!box) return;
    box.dataset.state = badge.state;
    const pill = box.querySelector('.cert-pill');
    pill.className = `cert-pill ${badge.tone}`;
    pill.textContent = badge.label;
    box.querySelector('.certified-text').textContent = badge.text;
    box.querySelector('.findings')?.remove();
    if (badge.notes.length === 0) return;
    const list = document.createElement('ul');
    list.className = 'findings';
    for (const note of badge.notes) list.append(Object.assign(document.createElement('li'), { textContent: note }));
    box.append(list);
  };

  // "Verify everything": start the run without leaving the page, show its progress, then show the verdicts.
  const verify = document.getElementById('verify');
  if (verify) {
    const progress = document.getElementById('verify-progress');
    const form = verify.querySelector('form');
    let polling = false;
    const poll = async () => {
      polling = true;
      try {
        const response = await fetch(verify.dataset.status, { headers: { accept: 'application/json' } });
        const status = await response.json();
        progress.textContent = (status.state === 'running' ? 'verifying: ' : '') + status.progress;
        progress.dataset.state = status.state;
        for (const badge of status.badges) showBadge(badge, status.command);
        if (status.certified) showCertified(status.certified);
        if (status.state === 'running') setTimeout(poll, 400);
        else polling = false;
      } catch {
        polling = false;
        progress.textContent = 'lost contact with the server: reload the page';
      }
    };
    if (form) {
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        progress.textContent = 'starting';
        progress.dataset.state = 'running';
        await fetch(form.action, { method: 'POST', redirect: 'manual' });
        if (!polling) poll();
      });
    }
    if (progress && progress.dataset.state === 'running') poll();
  }
});
