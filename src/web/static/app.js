// Progressive enhancement for `git walrus web`: every page works without this file. Served from /static under a CSP
// that allows no inline script; it only ever sets text (textContent), never markup.
/* global document, fetch, setTimeout */
'use strict';

document.addEventListener('DOMContentLoaded', () => {
  // A ref picker applies as soon as a ref is chosen.
  for (const select of document.querySelectorAll('select.autosubmit')) {
    select.addEventListener('change', () => select.form && select.form.submit());
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
