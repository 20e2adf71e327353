"""Python (onnxruntime) vs browser (transformers.js + onnxruntime-web) vectors of the same bundled model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pagedriver import query, wait

pytestmark = pytest.mark.browser

TEXTS = [
    "The cat sat on the mat.",
    "Revenue rose 12.5% to $4.3 billion in the third quarter.",
    '"I never said that," she replied.',
    "東京は日本の首都です。",
    "我喜欢在周末读书和散步。",
    "🎉 Congratulations on your new job! 🚀",
    "The 𝒻𝒶𝓃𝒸𝓎 letters are outside the BMP.",
    "Mr. Smith went to Washington D.C. in Jan. 2020.",
    "line one\nline two",
    "Das Wetter ist heute sehr schön.",
    "The patient was given 500 mg of amoxicillin twice daily.",
    "The company denied any wrongdoing.",
    "Scientists discovered a new species of frog in the Amazon rainforest.",
    "A spokesperson declined to comment.",
    "The team lost 3–1 in extra time.",
    "x",
    "ALL CAPS SENTENCE ABOUT THE ECONOMY",
    "#hashtag @mention example.com/path?q=1",
    "Officials said the fire, which destroyed 40 homes, was started deliberately.",
    "The committee, which had met every Thursday since the spring of 2019 in the basement of the old "
    "library, published its 312-page report on the regional water supply, concluding that the reservoir's "
    "capacity of 4.7 million cubic metres would be insufficient by 2035 unless consumption fell by at least "
    "18 percent, a figure the mayor's office disputed, arguing that the models relied on outdated "
    "population estimates and ignored the new desalination plant near the harbour.",
    "   spaces around   ",
    "No injuries were reported.",
]

# A test-only page: just the embedder module as the bundle ships it (its packed file), no UI.
TEST_PAGE = """<!doctype html><meta charset="utf-8"><title>embedder test</title>
<script type="module">
import { createEmbedder } from './app/EMBEDDER';
const manifest = await (await fetch('./manifest.json')).json();
const emb = createEmbedder(manifest, './');
window.statuses = [emb.status];
emb.onStatus((s) => window.statuses.push(s));
window.embedder = emb;
window.embedTexts = async (texts) => (await emb.embed(texts)).map((v) => Array.from(v));
</script>"""


def embed_test_page(bundle: Path) -> str:
    """TEST_PAGE importing the bundle's packed embedder file."""
    [embedder_file] = (bundle / "app").glob("embedder-*.js")
    return TEST_PAGE.replace("EMBEDDER", embedder_file.name)


def bundled(bundle: Path):
    """Python's embedder of a bundle's own model folder: the model the page runs (its vocabulary is the
    bundle's, vocabulary.py), so any text, in the bundle or not, must get the page's vectors."""
    from mercury_static.assist.embed import Embedder

    manifest = json.loads((bundle / "manifest.json").read_text())
    return Embedder(bundle / manifest["model"]["path"], meta=manifest["model"])


@pytest.fixture(scope="module")
def bundle_embedder(demo_bundle):
    return bundled(demo_bundle)


@pytest.fixture(scope="module")
def parity_page(demo_bundle, serve_dir, browser, tmp_path_factory):
    """The demo bundle served from a copy that also holds the test page (in a sub-folder URL)."""
    import shutil

    root = tmp_path_factory.mktemp("parity")
    copy = root / "sub" / "bundle"
    shutil.copytree(demo_bundle, copy)
    (copy / "embed-test.html").write_text(embed_test_page(copy), encoding="utf-8")
    base = serve_dir(root) + "sub/bundle/"
    ctx = browser.new_context()
    requests: list[str] = []
    ctx.on("request", lambda r: requests.append(r.url))
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "embed-test.html")
    page.wait_for_function("window.embedder !== undefined")
    page.evaluate("window.embedder.ready")
    yield page, base, requests, errors
    ctx.close()


def test_browser_vectors_match_python(parity_page, bundle_embedder):
    page, base, requests, errors = parity_page
    assert len(TEXTS) >= 20
    got = np.array(page.evaluate("(t) => window.embedTexts(t)", TEXTS), dtype=np.float32)
    ref = bundle_embedder.embed(TEXTS)
    assert got.shape == ref.shape == (len(TEXTS), 384)
    cosine = (got * ref).sum(axis=1) / np.linalg.norm(got, axis=1)
    print(f"browser vs Python: min cosine {cosine.min():.7f}, max abs diff {np.abs(got - ref).max():.2e}")
    assert cosine.min() >= 0.9999, dict(zip(TEXTS, cosine.round(6)))
    # One by one (other padding) gives the same vectors as the batch.
    one = np.array(page.evaluate("(t) => window.embedTexts(t)", TEXTS[:1]), dtype=np.float32)[0]
    assert np.abs(one - got[0]).max() <= 1e-5
    assert not errors


def test_model_loaded_from_the_bundle_only(parity_page):
    page, base, requests, errors = parity_page
    statuses = page.evaluate("window.statuses")
    assert statuses[-1] == "ready" and "loading" in statuses
    foreign = [u for u in requests if not u.startswith((base, "blob:" + base.split("/sub/")[0]))]
    assert not foreign
    loaded = {u[len(base):] for u in requests if u.startswith(base)}
    manifest = json.loads(page.evaluate("fetch('./manifest.json').then(r => r.text())"))
    assert manifest["model"]["pooling"] == "mean"
    model = manifest["model"]["path"]
    assert manifest["model"]["weights"] == "onnx/model_quantized.weights"
    assert {f"{model}/onnx/model_quantized.onnx", f"{model}/onnx/model_quantized.weights", f"{model}/tokenizer.json",
            "vendor/ort-wasm-simd-threaded.wasm"} <= loaded


def test_latest_request_supersedes_pending_ones(parity_page):
    page, *_ = parity_page
    result = page.evaluate("""async () => {
        const emb = window.embedder;
        const busy = emb.embed(['a long running batch of text to keep the worker busy'].concat(Array(30).fill('x y z')));
        const a = emb.embedLatest('first query');
        const b = emb.embedLatest('second query');
        const c = emb.embedLatest('third query');
        const [ra, rb, rc, rbusy] = await Promise.all([a, b, c, busy]);
        return [ra, rb, rc === null ? null : rc.length, rbusy.length];
    }""")
    assert result == [None, None, 384, 31]


def test_broken_model_fails_visibly(demo_bundle, serve_dir, browser, tmp_path_factory):
    import shutil

    copy = tmp_path_factory.mktemp("broken") / "bundle"
    shutil.copytree(demo_bundle, copy)
    (copy / "embed-test.html").write_text(embed_test_page(copy), encoding="utf-8")
    model = json.loads((copy / "manifest.json").read_text())["model"]["path"]
    (copy / model / "onnx" / "model_quantized.onnx").write_bytes(b"not an onnx file")
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(serve_dir(copy) + "embed-test.html")
    page.wait_for_function("window.embedder && window.embedder.status === 'failed'", timeout=30000)
    err = page.evaluate("window.embedTexts(['x']).then(() => 'resolved', (e) => String(e))")
    assert "model failed to load" in err
    ctx.close()


def embed_page(browser, root: Path, serve_dir):
    """The embedder test page over the bundle at `root`: (context, page), the model loaded or failed."""
    (root / "embed-test.html").write_text(embed_test_page(root), encoding="utf-8")
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(serve_dir(root) + "embed-test.html")
    page.wait_for_function("window.embedder && ['ready', 'failed'].includes(window.embedder.status)", timeout=60000)
    return ctx, page


@pytest.mark.parametrize("damage", ["version", "missing"])
def test_a_broken_weights_file_fails_visibly(demo_bundle, serve_dir, browser, tmp_path_factory, damage):
    """A weights file of another version, or none at all: the model fails with a message, never a model
    computing with missing weights."""
    import shutil

    copy = tmp_path_factory.mktemp("weights") / "bundle"
    shutil.copytree(demo_bundle, copy)
    weights = copy / json.loads((copy / "manifest.json").read_text())["model"]["path"] / "onnx/model_quantized.weights"
    if damage == "missing":
        weights.unlink()
    else:
        data = weights.read_bytes()
        size = int.from_bytes(data[:4], "little")
        header = data[4:4 + size].replace(b'"version":1', b'"version":7')
        weights.write_bytes(data[:4] + header + data[4 + size:])
    ctx, page = embed_page(browser, copy, serve_dir)
    err = page.evaluate("window.embedTexts(['x']).then(() => 'resolved', (e) => String(e))")
    ctx.close()
    assert "model failed to load" in err
    assert ("version 7" in err) if damage == "version" else ("404" in err)


def test_a_model_folder_without_a_weights_file(demo_bundle, serve_dir, browser, tmp_path_factory, embedder):
    """A bundle whose model folder holds the model file itself (no weights file, as bundles before the page
    form had): the page loads it and onnxruntime-web optimizes it, with the same vectors."""
    import shutil

    from conftest import TEST_CACHE
    from mercury_static.assist.model_export import default_model_path, ensure_model

    copy = tmp_path_factory.mktemp("plain") / "bundle"
    shutil.copytree(demo_bundle, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    onnx_dir = copy / manifest["model"]["path"] / "onnx"
    (onnx_dir / "model_quantized.weights").unlink()
    exported = ensure_model(default_model_path(), cache_dir=TEST_CACHE)
    shutil.copyfile(exported.onnx_path, onnx_dir / "model_quantized.onnx")
    for name in ("tokenizer.json", "config.json"):  # the whole vocabulary, as such a bundle had
        shutil.copyfile(exported.dir / name, onnx_dir.parent / name)
    del manifest["model"]["weights"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    ctx, page = embed_page(browser, copy, serve_dir)
    got = np.array(page.evaluate("(t) => window.embedTexts(t)", TEXTS), dtype=np.float32)
    ctx.close()
    assert (got * embedder.embed(TEXTS)).sum(axis=1).min() >= 0.9999


def test_the_annotator_page_embeds_like_python(bundle_server, page, bundle_embedder):
    """The real page's hook (`embed`, through pagedriver) gives the Python vectors too."""
    page.goto(bundle_server + "?annotator=parity")
    wait(page, "() => pd.hooked() && document.body.dataset.ready === 'true'", timeout=30_000)
    got = np.array(query(page, "async (t) => (await pd.embed(t)).map((v) => Array.from(v))", TEXTS),
                   dtype=np.float32)
    ref = bundle_embedder.embed(TEXTS)
    cosine = (got * ref).sum(axis=1) / np.linalg.norm(got, axis=1)
    assert len(got) == len(TEXTS) >= 20
    assert cosine.min() >= 0.9999, dict(zip(TEXTS, cosine.round(6)))


def test_cls_pooling_model_end_to_end(build_bundle, serve_dir, browser, tmp_path_factory, embedder):
    """A --model folder that pools the CLS token: Python matches sentence-transformers on that folder, the
    bundle says so, and the page's vectors match Python's."""
    import shutil

    from sentence_transformers import SentenceTransformer

    from conftest import TEST_CACHE
    from mercury_static.assist.embed import Embedder
    from mercury_static.assist.model_export import default_model_path, ensure_model

    root = tmp_path_factory.mktemp("cls")
    model_dir = root / "cls-minilm"
    shutil.copytree(default_model_path(), model_dir)
    pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
    pooling.update(pooling_mode_cls_token=True, pooling_mode_mean_tokens=False)
    (model_dir / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    data = root / "pairs.jsonl"
    data.write_text("\n".join(json.dumps({"id": f"r{i}", "source": TEXTS[i], "summary": TEXTS[i + 1]})
                              for i in range(3)), encoding="utf-8")
    out = build_bundle([data], name="cls", model=model_dir)
    assert json.loads((out / "manifest.json").read_text())["model"]["pooling"] == "cls"

    texts = TEXTS[:10]
    ours = Embedder(ensure_model(model_dir, cache_dir=TEST_CACHE).dir).embed(texts)
    reference = SentenceTransformer(str(model_dir), device="cpu").encode(texts, normalize_embeddings=True)
    assert (ours * reference).sum(axis=1).min() >= 0.995  # int8 weights, as for the default model
    assert (ours * embedder.embed(texts)).sum(axis=1).min() < 0.95  # CLS, not the mean of the tokens

    (out / "embed-test.html").write_text(embed_test_page(out), encoding="utf-8")
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(serve_dir(out) + "embed-test.html")
    page.wait_for_function("window.embedder !== undefined")
    page.evaluate("window.embedder.ready")
    got = np.array(page.evaluate("(t) => window.embedTexts(t)", texts), dtype=np.float32)
    ctx.close()
    assert (got * bundled(out).embed(texts)).sum(axis=1).min() >= 0.9999


def test_worker_tokens_match_python(parity_page, bundle_embedder):
    """The worker's token vectors and word spans (tokens.js) are Python's (tokens.py) for every text."""
    page, *_ = parity_page
    got = page.evaluate("""async (texts) => (await window.embedder.tokens(texts)).map((r) => r && {
        spans: Array.from(r.spans), vectors: Array.from(r.vectors)})""", TEXTS)
    worst = 1.0
    for text, row in zip(TEXTS, got):
        [ref] = bundle_embedder.token_rows(text, [(0, 0, len(text))])
        assert row is not None, text
        assert row["spans"] == ref.spans.ravel().tolist(), text
        vectors = np.array(row["vectors"], dtype=np.float32).reshape(ref.vectors.shape)
        cosine = (vectors * ref.vectors).sum(axis=1) / np.linalg.norm(vectors, axis=1) / np.linalg.norm(ref.vectors, axis=1)
        worst = min(worst, float(cosine.min()))
    print(f"worker vs Python token vectors: min cosine {worst:.7f}")
    assert worst >= 0.9999
