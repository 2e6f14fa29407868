// When the code of the page being opened cannot be fetched (a network drop, a deploy that removed old chunks), the
// app never hydrates and the failure is an unhandled promise rejection. The reader still has the server-rendered
// text, so say what went wrong above it and offer Retry, which loads the page again. Failures during client-side
// navigation are handled by Docusaurus itself (it reloads the page), so they never get here.
const BOX_ID = 'keyway-load-error';

function isChunkError(reason: unknown): reason is Error {
  return reason instanceof Error && (reason.name === 'ChunkLoadError' || /Loading (CSS )?chunk \S+ failed/.test(reason.message));
}

function showLoadError(error: Error): void {
  if (document.getElementById(BOX_ID)) return;
  const box = document.createElement('div');
  box.id = BOX_ID;
  box.setAttribute('role', 'alert');
  box.className = 'alert alert--danger';
  box.style.cssText = 'position:fixed;left:50%;bottom:1.5rem;transform:translateX(-50%);z-index:1000;max-width:36rem;width:calc(100% - 2rem);box-shadow:0 10px 30px rgb(0 0 0 / .2)';
  const text = document.createElement('p');
  text.style.margin = '0 0 .75rem';
  text.textContent = `This page did not load completely. ${error.message.split('\n')[0]}`;
  const retry = document.createElement('button');
  retry.type = 'button';
  retry.className = 'button button--danger';
  retry.textContent = 'Retry';
  retry.addEventListener('click', () => window.location.reload());
  box.append(text, retry);
  document.body.append(box);
  retry.focus();
}

if (typeof window !== 'undefined') {
  window.addEventListener('unhandledrejection', (event) => {
    if (isChunkError(event.reason)) showLoadError(event.reason);
  });
}

export {};
