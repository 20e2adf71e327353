/**
 * Every renderer but the text panes, mounted on the store: the settings' fields and questions, the draft
 * card, the annotations, the side panel, banners, dialogs (which keep the focus while open), the save
 * indicator, the side columns.
 */
import { trapFocus } from '../keys/keys.js';
import { mountSavedNav } from '../keys/savednav.js';
import { SIDES } from '../state/store.js';
import { h } from '../util.js';
import { mountHistory } from './historyview.js';
import { mountLayout } from './layout.js';
import { mountSuggestionWalk } from './suggestwalk.js';
import { mountAllDone, mountFinish } from './alldone.js';
import { mountAnnotations } from './annotations.js';
import { mountBanners } from './banners.js';
import { mountDraft } from './draft.js';
import { mountOverlays } from './overlays.js';
import { mountRecordInfo } from './recordinfo.js';
import { mountSaveStatus } from './savestatus.js';
import { mountSuggestions } from './suggestions.js';
import { mountToast } from './toast.js';
import { mountTopbar } from './topbar.js';

/**
 * Mount the renderers. `mods`: the settings' lazily loaded modules {questionsMod, fieldsMod, similarMod};
 * `commands`: {navigate(go), exportNow(), save(), clear()}. Returns {form (questions.js, or its stand-in),
 * savedNav, suggestionWalk, layout}.
 */
export function mountViews(store, bundle, { settings, queue, mods, commands }) {
  const { manifest } = bundle;
  const { actions } = store;
  const { questionsMod, fieldsMod, similarMod } = mods;
  const { navigate, exportNow } = commands;
  const byId = (id) => document.getElementById(id);
  mountTopbar(store, bundle, document.querySelector('.topbar'), queue);
  mountRecordInfo(store, byId('record-info'), manifest.settings?.metadata, settings.blind);
  // the settings' fields and questions: titles of the texts, extra fields above them, the form under them
  for (const side of SIDES) document.querySelector(`.pane[data-pane="${side}"] .pane-title`).firstChild.data = `${settings.fields[side].title} `;
  const layoutEl = document.querySelector('.layout');
  const fieldsBox = h('section', { id: 'fields', class: 'fields', 'aria-label': 'fields', hidden: true });
  const formBox = h('section', { id: 'questions', class: 'questions', 'aria-label': 'questions', hidden: true });
  if (settings.fields.extra.length || settings.questions.length) {
    layoutEl.append(fieldsBox, formBox);
    document.body.dataset.form = 'true';
  }
  if (fieldsMod) fieldsMod.mountFields(store, settings.fields.extra, fieldsBox);
  if (similarMod) {
    const similarBox = h('section', { class: 'card similar', id: 'similar-card' });
    document.querySelector('#side .side-scroll').append(similarBox);
    similarMod.mountSimilar(store, bundle, similarBox, (id) => navigate(() => actions.goToId(id)));
  }
  const form = questionsMod ? questionsMod.mountQuestions(store, actions, settings.questions, formBox)
    : { focusQuestion: () => false, accept: () => false, focusQuestionNamed: () => {} };
  mountDraft(store, actions, byId('draft'), { save: () => commands.save(), clear: () => commands.clear() });
  mountAnnotations(store, actions, byId('annotations'));
  const savedNav = mountSavedNav(store, actions);
  const suggestionWalk = mountSuggestionWalk(store, actions, byId('toast'));
  mountHistory(store, actions, byId('history'));
  mountSuggestions(store, actions, byId('suggestions'));
  mountBanners(store, actions, byId('banners'), exportNow);
  mountToast(store, actions, byId('toast'));
  mountOverlays(store, actions, manifest, { help: byId('overlay-help'), guide: byId('guidelines') });
  mountFinish(store, document.querySelector('#side .finish'));
  mountAllDone(store, bundle, byId('all-done'), { close: () => actions.showAllDone(false), queue });
  const layout = mountLayout(store);
  mountSaveStatus(store, byId('save-status'));
  // dialogs keep the focus while open and give it back when closed
  const traps = { help: null, guidelines: null };
  store.subscribe((s) => {
    for (const [name, el] of [['help', document.querySelector('#overlay-help .dialog')], ['guidelines', document.getElementById('guidelines')]]) {
      if (s.ui[name] && !traps[name]) traps[name] = trapFocus(el);
      else if (!s.ui[name] && traps[name]) {
        const release = traps[name];
        traps[name] = null;
        release();
      }
    }
  });
  return { form, savedNav, suggestionWalk, layout };
}
