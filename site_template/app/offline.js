/**
 * The page offline after a first visit: registers the bundle's service worker (sw.js at the bundle's root,
 * one cache per build: sw.js?bundle=<bundle_id>), hands it the files the page loaded before it took control,
 * hands it the files of the records ahead (keepForOffline), and says in the header when the page is offline.
 * `controlled` resolves once the worker controls the page (or at once where there is none): the model's
 * worker is started after it, so the model is stored as it downloads instead of being downloaded twice.
 */
export const CONTROL_WAIT_MS = 3000;

let controlledPromise = Promise.resolve(false);
let inControl = new Promise(() => {}); // resolves once this build's worker controls the page (never without one)

/** Resolves (true when a service worker controls the page) before the model's worker starts. */
export function controlled() {
  return controlledPromise;
}

/** The files this page loaded so far, of this bundle: the page itself and every resource. */
function loadedUrls(scope) {
  const urls = [window.location.href, ...performance.getEntriesByType('resource').map((e) => e.name)];
  return urls.filter((u) => u.startsWith(scope));
}

/** Register the service worker of the bundle `manifest` (served from `baseUrl`) and show the offline state. */
export function registerOffline(manifest, baseUrl = './') {
  showOffline();
  const sw = navigator.serviceWorker;
  if (!sw || !window.isSecureContext) return;
  const scope = new URL(baseUrl, document.baseURI).href;
  const script = new URL(`sw.js?bundle=${encodeURIComponent(manifest.bundle_id)}`, scope).href;
  const ours = () => sw.controller && sw.controller.scriptURL === script;
  if (sw.controller && !ours() && sw.controller.scriptURL.startsWith(new URL('sw.js', scope).href)) {
    // Another build's worker controls the page (the bundle was rebuilt): a hand-over between two builds'
    // workers can stall the page's requests, so that worker is unregistered and the page loaded once more,
    // uncontrolled, as on a first visit (once per build: never a reload loop).
    const key = `mercury-static:worker-reset:${manifest.bundle_id}`;
    if (!window.sessionStorage.getItem(key)) {
      window.sessionStorage.setItem(key, '1');
      controlledPromise = new Promise(() => {}); // the model waits for the reload
      sw.getRegistration(scope).then((r) => r && r.unregister()).catch(() => false)
        .then(() => window.location.reload());
      return;
    }
  }
  inControl = new Promise((resolve) => {
    const check = () => {
      if (!ours()) return;
      sw.removeEventListener('controllerchange', check);
      resolve();
    };
    sw.addEventListener('controllerchange', check);
    check();
  });
  let registered = () => {};
  controlledPromise = new Promise((resolve) => {
    if (ours()) {
      resolve(true);
      return;
    }
    const done = () => {
      sw.removeEventListener('controllerchange', check);
      clearTimeout(timer);
      resolve(ours());
    };
    const check = () => {
      if (ours()) done();
    };
    sw.addEventListener('controllerchange', check);
    const timer = setTimeout(done, CONTROL_WAIT_MS);
    registered = done;
  });
  sw.register(script, { scope }).catch((err) => {
    console.warn(`offline use unavailable: ${err.message}`);
    registered(false); // no worker will take control: the model starts now, not after the wait
  });
  const keep = () => {
    if (ours()) sw.controller.postMessage({ type: 'keep', urls: loadedUrls(scope) });
  };
  controlledPromise.then(keep);
  sw.addEventListener('controllerchange', keep); // control that comes after the wait: what loaded before is kept too
}

/**
 * Hand files of this bundle to the service worker, once it controls the page (at once, or when it takes
 * control), to be stored for use offline; the worker skips those it holds already.
 */
export async function keepForOffline(urls) {
  if (!urls.length) return;
  await inControl;
  const absolute = [...new Set(urls.map((u) => new URL(u, document.baseURI).href))];
  navigator.serviceWorker.controller?.postMessage({ type: 'keep', urls: absolute });
}

/** "offline" in the header while the browser has no network, with what that leaves out in its title. */
function showOffline() {
  const model = document.getElementById('model-status');
  if (!model) return;
  const el = document.createElement('span');
  el.id = 'offline-status';
  el.className = 'offline-status slot';
  el.textContent = 'offline';
  el.title = 'No network: your work is saved in this browser and uploads wait for the network. Records neither opened here nor among the next ones of your queue are not available until the network is back.';
  model.before(el);
  const draw = () => {
    el.hidden = navigator.onLine !== false;
  };
  window.addEventListener('online', draw);
  window.addEventListener('offline', draw);
  draw();
}
