// Progressive enhancement for `git walrus web`: every page works without this file. Served from /static under a CSP
// that allows no inline script; it only ever sets text (textContent), never markup.
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
        for (const badge of status.badges) {
          const element = verify.ownerDocument.querySelector(`.badge[data-seq="${badge.seq}"]`);
          if (element) {
            element.className = `badge ${badge.state}`;
            element.textContent = badge.text;
          }
        }
        if (status.state === 'running') setTimeout(poll, 400);
        else {
          polling = false;
          // The findings and the checks of each push are rendered by the server.
          if (verify.dataset.started === 'yes' || status.badges.some((b) => b.state !== 'unchecked')) location.reload();
        }
      } catch {
        polling = false;
        progress.textContent = 'lost contact with the server: reload the page';
      }
    };
    if (form) {
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        verify.dataset.started = 'yes';
        await fetch(form.action, { method: 'POST', redirect: 'manual' });
        if (!polling) poll();
      });
    }
    if (progress && progress.dataset.state === 'running') {
      verify.dataset.started = 'yes';
      poll();
    }
  }
});
