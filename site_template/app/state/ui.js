/**
 * The page's own slices, none of them work: `ui` (overlays, messages, the notice, offers), `view` (k and the
 * minimum score), `model` (the in-browser model's status), `layout` (side columns) and `ui.upload`. Each
 * action writes the fields it names, never a caller's patch.
 */

/** The ui slice's actions. ctx: {store, setUi}. */
export function uiSlice({ store, setUi }) {
  const get = () => store.state;
  return {
    dismissToast() {
      if (get().ui.toast) setUi({ toast: null });
    },
    /** The ranking's k and minimum score (the view controls). */
    setView({ k, minScore }) {
      store.update({ view: { ...get().view, k, minScore } });
    },
    /** The in-browser model's status ('idle' | 'loading' | 'ready' | 'failed') and its message. */
    setModel({ status, message }) {
      store.update({ model: { status, message } });
    },
    /** Which side columns show (layout.js): {list, side}, null meaning the width's default. */
    setLayout({ list, side }) {
      store.update({ layout: { list, side } });
    },
    /** The upload to the team's storage (upload.js: its state, shown in the top bar). */
    setUpload(upload) {
      setUi({ upload });
    },
    hover(id) {
      if (get().ui.hover !== id) setUi({ hover: id });
    },
    toggleHelp(on = !get().ui.help) {
      setUi({ help: on });
    },
    toggleGuidelines(on = !get().ui.guidelines) {
      setUi({ guidelines: on });
    },
    message(text) {
      setUi({ message: text });
    },
    dismissAside() {
      setUi({ aside: [] });
    },
    /**
     * Offer work saved elsewhere (storage.earlierBundles):
     * [{key, bundleId, spelling, records, accept(), decline()}].
     */
    offerEarlier(offers) {
      setUi({ earlier: offers });
    },
    answerEarlier(key, accept) {
      const offer = get().ui.earlier.find((o) => o.key === key);
      if (!offer) return null;
      setUi({ earlier: get().ui.earlier.filter((o) => o !== offer) });
      return accept ? offer.accept() : offer.decline();
    },
  };
}
