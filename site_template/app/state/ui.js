/**
 * The page's own slices, none of them work: `ui` (overlays, messages, the notice, offers), `view` (k and the
 * minimum score), `model` (the in-browser model's status), `layout` (side columns) and `ui.upload`. Each
 * action writes the fields it names, never a caller's patch.
 */

/** The ui slice's actions. ctx: {store}. */
export function uiSlice({ store }) {
  const get = () => store.state;
  const setUi = (part) => store.update({ ui: { ...get().ui, ...part } });
  return {
    /** The notice of an undoable change of record `id` (its Undo undoes the last step of the history). */
    toast(text, id, extra = {}) {
      setUi({ toast: { text, id, at: Date.now(), ...extra } });
    },
    dismissToast() {
      if (get().ui.toast) setUi({ toast: null });
    },
    /** The save indicator (saving.js): `save` {state, seq, at} and the banner's `storageError`. */
    showSave(save, storageError) {
      setUi({ save, storageError });
    },
    /** The inline choice before leaving a draft (draft.js `leaveDraft`), or null. */
    offerChoice(choice) {
      setUi({ choice });
    },
    /** The draft card's message (why the draft was not saved), or null. */
    draftMessage(text) {
      setUi({ draftMessage: text });
    },
    /** Esc's first press on a draft with a label or a note: the draft card asks for a second. */
    confirmClear() {
      setUi({ confirmClear: true });
    },
    /** The draft changed: its card's question and message go. */
    draftChanged() {
      const { ui } = get();
      if (ui.confirmClear || ui.draftMessage) setUi({ confirmClear: false, draftMessage: null });
    },
    /** The draft was cleared: the help, the message line and the card's question go too. */
    draftCleared() {
      const { ui } = get();
      if (ui.help || ui.message || ui.confirmClear) setUi({ help: false, message: null, confirmClear: false });
    },
    /** Another record opens: the draft card's choice, question and message go. */
    recordOpened() {
      setUi({ choice: null, confirmClear: false, draftMessage: null });
    },
    /** The "all done" card (every record of the queue or the bundle is submitted or discarded). */
    showAllDone(on) {
      setUi({ allDone: on });
    },
    /** The ranking's k and minimum score (the view controls). */
    setView({ k, minScore }) {
      store.update({ view: { ...get().view, k, minScore } });
    },
    /** The in-browser model's status ('idle' | 'loading' | 'ready' | 'failed'), its message, and while it
     * loads the bytes of its download so far, their whole (null: not known) and when loading began. */
    setModel({ status, message, loaded = null, total = null, since = null }) {
      store.update({ model: { status, message, loaded, total, since } });
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
