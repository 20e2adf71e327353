// Service worker: the bundle keeps working offline after a first visit (docs/bundle.md "Offline").
// Written to the bundle's root by the build (its scope is the bundle folder) and registered by offline.js as
// sw.js?bundle=<bundle_id>: one cache per build, so a rebuilt bundle installs a new worker whose activation
// deletes the old build's cache (never a mix of two builds).
//   the page (a navigation) and manifest.json: network first (a rebuilt bundle reaches people), the cache
//     offline;
//   the runtime, the model and data/: cache first (a build's files never change under its id), stored as
//     they are fetched, so the model is downloaded once;
//   the page's modules and styles: cache first, revalidated in the background.
// Messages in: {type: 'keep', urls}: files the page loaded before this worker controlled it, stored now.
const BUNDLE = new URL(self.location.href).searchParams.get('bundle') || 'none';
const SCOPE = self.registration.scope;
const PREFIX = `mercury-static ${SCOPE} `;
const CACHE = PREFIX + BUNDLE;
const INDEX = SCOPE; // the page, whatever its query (?annotator=…)
let stale = false; // the network's manifest names another build: pass everything through

const pathOf = (url) => url.slice(SCOPE.length).split(/[?#]/)[0];
const immutable = (path) => /^(vendor|models|data)\//.test(path);

self.addEventListener('install', () => self.skipWaiting());

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

async function store(key, response) {
  if (stale || !response.ok || response.status !== 200 || response.type === 'opaque') return;
  const cache = await caches.open(CACHE);
  await cache.put(key, response);
}

/** The network's answer (stored for offline use), else the stored one. */
async function networkFirst(request, key) {
  try {
    const response = await fetch(request, { cache: 'no-cache' });
    if (key === SCOPE + 'manifest.json' && response.ok) {
      const id = await response.clone().json().then((m) => m.bundle_id, () => null);
      if (id && id !== BUNDLE) {
        stale = true; // a rebuilt bundle: this build's files must not answer its requests
        await caches.delete(CACHE);
      }
    }
    await store(key, response.clone());
    return response;
  } catch (err) {
    const hit = stale ? null : await caches.match(key, { cacheName: CACHE });
    if (hit) return hit;
    throw err;
  }
}

async function cacheFirst(event, request, revalidate) {
  const hit = await caches.match(request, { cacheName: CACHE });
  if (hit) {
    if (revalidate) event.waitUntil(fetch(request, { cache: 'no-cache' }).then((r) => store(request, r)).catch(() => {}));
    return hit;
  }
  const response = await fetch(request);
  event.waitUntil(store(request, response.clone()));
  return response;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (stale || request.method !== 'GET' || !request.url.startsWith(SCOPE) || request.headers.has('range')) return;
  const path = pathOf(request.url);
  if (request.mode === 'navigate') {
    // the manifest first: a page of another build is not served from this one's cache
    event.respondWith(networkFirst(SCOPE + 'manifest.json', SCOPE + 'manifest.json').catch(() => null)
      .then(() => networkFirst(request, INDEX)));
  } else if (path === 'manifest.json') {
    event.respondWith(networkFirst(request, SCOPE + 'manifest.json'));
  } else {
    event.respondWith(cacheFirst(event, request, !immutable(path)));
  }
});

self.addEventListener('message', (event) => {
  const msg = event.data;
  if (!msg || msg.type !== 'keep' || stale) return;
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    for (const url of msg.urls) {
      const page = ['', 'index.html'].includes(pathOf(String(url)));
      const key = page ? INDEX : url;
      if (!String(url).startsWith(SCOPE) || await cache.match(key)) continue;
      try {
        await store(key, await fetch(url)); // the page has just loaded it: a revalidation at most
      } catch {
        // offline meanwhile: kept at its next load
      }
    }
  })());
});
