"""The settings file's `keys`: the page's one-key shortcuts changed per action, checked at
build so that a typo never reaches an annotator: an unknown action, a key the page keeps for itself or a key
of two actions is one line naming the file and the action. The page's defaults (site_template/app/keys/keymap.js
`DEFAULT_KEYS`) are generated from `DEFAULT_KEYS` (`make generate`)."""

from __future__ import annotations


from mercury_static.core.records import InputError

DEFAULT_KEYS: dict[str, tuple[str, ...]] = {
    "next": ("n", "j"), "prev": ("p", "k"), "submit": ("s",), "discard": ("d",), "find": ("f",),
    "other_pane": ("o",), "next_match": (".",), "prev_match": (",",), "pair": ("l",), "no_source": ("x",),
    "note": ("c",), "next_saved": ("m",), "prev_saved": ("M",), "delete_saved": ("Delete",),
    "suggestions": ("w",), "next_todo": ("t",), "toggle_list": ("[",), "toggle_side": ("]",), "filter": ("/",),
    "export": ("e",), "guidelines": ("g",), "help": ("?",), "next_question": ("q",), "prev_question": ("Q",),
    "accept": ("a",), "next_sentence": ("v",), "prev_sentence": ("V",), "confirm_sentence": ("y",),
    "sentence_verdict": ("u",), "accept_sentence": ("Y",),
}
NAMED = ("Delete", "Insert", "Home", "End", "PageUp", "PageDown", *(f"F{i}" for i in range(1, 13)))
"""Keys by name (KeyboardEvent.key) a shortcut may be; any other is one printable character."""
FIXED = "digits (labels), Enter, Escape, Tab, Backspace, space and the arrows"


def _key_problem(key: str) -> str | None:
    if key in NAMED:
        return None
    if len(key) != 1 or not key.isprintable():
        return f"{key!r} is not a key: one character or one of {', '.join(NAMED)}"
    if key.isdigit() or key.isspace():
        return f"{key!r} is kept by the page ({FIXED} are not shortcuts to change)"
    return None


def check_keys(value, file: str) -> dict[str, tuple[str, ...]]:
    """`keys: {action: key or [keys]}` checked into {action: keys}; every other action keeps its defaults."""
    where = "keys"
    if not isinstance(value, dict):
        raise InputError(file, where, None, "expected a mapping of action: key")
    out: dict[str, tuple[str, ...]] = {}
    for action, keys in value.items():
        if action not in DEFAULT_KEYS:
            raise InputError(file, where, str(action), f"unknown action (expected one of: {', '.join(DEFAULT_KEYS)})")
        given = [keys] if isinstance(keys, str) else keys
        if not isinstance(given, list) or not given or not all(isinstance(k, str) for k in given):
            raise InputError(file, where, action, "expected a key or a list of keys (strings)")
        for k in given:
            problem = _key_problem(k)
            if problem:
                raise InputError(file, where, action, problem)
        out[action] = tuple(dict.fromkeys(given))
    owner: dict[str, str] = {}
    for action, defaults in DEFAULT_KEYS.items():
        for k in out.get(action, defaults):
            if k in owner:
                changed = action if action in out else owner[k]
                raise InputError(file, where, changed, f"key {k!r} is both {owner[k]}'s and {action}'s "
                                 "(give the other action another key too)")
            owner[k] = action
    return out
